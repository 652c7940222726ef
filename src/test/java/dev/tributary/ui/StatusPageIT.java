package dev.tributary.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The status page in a real browser: Debian's Chromium driven by Selenium through its ChromeDriver.
 * Signs in with an API key, creates a table through the API, and watches its row turn RUNNING and
 * its events arrive. The screenshot is kept as target/ui/status-page.png. Without Chromium the test
 * is skipped with a message, except under .ci/run, which installs it and requires it.
 */
@TributaryIT
class StatusPageIT {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  @LocalServerPort int port;
  WebDriver browser;
  Path profile;

  @BeforeEach
  void browser() throws Exception {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
    if (!present && "required".equals(System.getenv("TRIBUTARY_BROWSER_TESTS"))) {
      throw new IllegalStateException(
          "Chromium and ChromeDriver are required here (TRIBUTARY_BROWSER_TESTS=required) but "
              + CHROMIUM
              + " or "
              + DRIVER
              + " is missing; install Debian's chromium and chromium-driver packages");
    }
    assumeTrue(
        present,
        "No Chromium at "
            + CHROMIUM
            + ": the browser test is skipped (apt-get install chromium chromium-driver)");
    profile = Files.createTempDirectory("chromium-profile");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build();
    browser = new ChromeDriver(service, options);
  }

  @AfterEach
  void close() {
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void shouldShowATableTurnRunningAndItsEventsLive() throws Exception {
    String base = "http://127.0.0.1:" + port;
    browser.get(base + "/ui");
    assertThat(browser.getCurrentUrl()).as("no session: the sign-in page").endsWith("/ui/login");
    browser.findElement(By.id("key")).sendKeys("trb_wrong" + "x".repeat(39));
    browser.findElement(By.id("sign-in")).click();
    WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
    wait.until(ExpectedConditions.textMatches(By.id("error"), Pattern.compile(".+")));
    assertThat(browser.findElement(By.id("error")).getText()).contains("not valid");

    WebElement key = browser.findElement(By.id("key"));
    key.clear();
    key.sendKeys(LocalStack.get().adminApiKey());
    browser.findElement(By.id("sign-in")).click();
    wait.until(ExpectedConditions.urlToBe(base + "/ui"));

    String name = "ui_" + UUID.randomUUID().toString().substring(0, 6);
    Api api = new Api(port);
    api.ok(
        "CREATE MATERIALIZED TABLE "
            + name
            + " AS SELECT order_id, price FROM examples.marketplace.orders WHERE price > 10");
    By phase = By.cssSelector("tr[data-table='examples.marketplace." + name + "'] td.phase");
    new WebDriverWait(browser, Duration.ofSeconds(120))
        .until(ExpectedConditions.textToBe(phase, "RUNNING"));
    assertThat(
            browser
                .findElement(
                    By.cssSelector("tr[data-table='examples.marketplace." + name + "'] td.pool"))
                .getText())
        .isEqualTo("default");

    browser.findElement(By.cssSelector("a[data-name='" + name + "']")).click();
    new WebDriverWait(browser, Duration.ofSeconds(20))
        .until(d -> d.findElements(By.cssSelector("#events tbody tr")).size() >= 2);
    assertThat(browser.findElement(By.id("events")).getText()).contains("JobRunning");
    assertThat(browser.findElement(By.id("lineage")).getText())
        .contains("examples.marketplace.orders")
        .contains("examples.marketplace." + name);

    // A live event: suspend, and the page's stream shows it without a reload.
    api.ok("ALTER MATERIALIZED TABLE " + name + " SUSPEND");
    new WebDriverWait(browser, Duration.ofSeconds(60))
        .until(d -> d.findElement(By.id("events")).getText().contains("Suspended"));
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.textToBe(phase, "STOPPED"));

    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Path kept = Path.of("target", "ui", "status-page.png");
    Files.createDirectories(kept.getParent());
    Files.copy(shot.toPath(), kept, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.size(kept)).isGreaterThan(10_000);
    api.ok("DROP MATERIALIZED TABLE " + name);
  }

  @Test
  void shouldAcceptThePagesCookieOnlyForItsOwnReads() throws Exception {
    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    String base = "http://127.0.0.1:" + port;
    HttpResponse<String> anonymous =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/ui")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).isEqualTo(303);
    assertThat(anonymous.headers().firstValue("Location")).hasValue("/ui/login");

    HttpResponse<String> session =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/ui/session"))
                .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(session.statusCode()).isEqualTo(204);
    String cookie = session.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict").contains("Path=/ui");
    String pair = cookie.substring(0, cookie.indexOf(';'));

    HttpResponse<String> page =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/ui")).header("Cookie", pair).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<h2>Tables</h2>");

    // The rows come a page at a time, as the API's lists do: one table, then the next by its link.
    Api tablesApi = new Api(port);
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    List<String> created = List.of("ui_page_a_" + suffix, "ui_page_b_" + suffix);
    for (String t : created) {
      tablesApi.ok(
          "CREATE MATERIALIZED TABLE "
              + t
              + " AS SELECT order_id FROM examples.marketplace.orders");
    }
    Pattern row = Pattern.compile("<tr data-table=\"([^\"]+)\"");
    Pattern next = Pattern.compile("id=\"next-page\" href=\"/ui\\?([^\"]+)\"");
    String query = "limit=1";
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String rows =
          http.send(
                  HttpRequest.newBuilder(URI.create(base + "/ui/rows?" + query))
                      .header("Cookie", pair)
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher tables = row.matcher(rows);
      assertThat(tables.find()).as("a table row in %s", rows).isTrue();
      seen.add(tables.group(1));
      assertThat(tables.find()).as("one row per page of limit=1").isFalse();
      Matcher link = next.matcher(rows);
      if (i == 0) {
        assertThat(link.find()).as("a next-page link: two tables or more").isTrue();
        query = link.group(1).replace("&amp;", "&");
      }
    }
    assertThat(seen.get(1)).isGreaterThan(seen.get(0));
    for (String t : created) {
      tablesApi.ok("DROP MATERIALIZED TABLE " + t);
    }
    // The same cookie opens nothing outside the page, and no write anywhere.
    HttpResponse<String> api =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/catalogs"))
                .header("Cookie", pair)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(api.statusCode()).isEqualTo(401);
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/ui/session"))
                .header("Cookie", pair)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(401);
  }
}
