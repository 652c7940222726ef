package dev.tributary.ui;

import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.security.UiCookie;
import dev.tributary.security.UiSessions;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.TableOptions;
import dev.tributary.statement.Lineage;
import dev.tributary.system.Paging;
import dev.tributary.table.Freshness;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableSpec;
import dev.tributary.table.web.EventStreams;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.CookieValue;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The status page, {@code /ui}: every table the caller may read with its phase, refresh mode,
 * freshness, measured lag and last and next refresh; the lineage picture; and a table's events as
 * they happen. Server-rendered HTML and a little JavaScript. A browser signs in once with an API
 * key or token ({@code /ui/login}, which posts it as a bearer token to {@code /ui/session}); the
 * session is that key in an HttpOnly, SameSite=Strict cookie scoped to {@code /ui}, accepted for
 * the page's GETs only (see {@link UiCookie}), so no other site can make the browser change
 * anything with it.
 */
@Hidden
@RestController
@RequestMapping("/ui")
class StatusPage {

  private static final MediaType HTML = new MediaType("text", "html", StandardCharsets.UTF_8);

  private final MaterializedTableService tables;
  private final Freshness freshness;
  private final Lineage lineage;
  private final EventStreams streams;
  private final UiSessions sessions;

  StatusPage(
      MaterializedTableService tables,
      Freshness freshness,
      Lineage lineage,
      EventStreams streams,
      UiSessions sessions) {
    this.sessions = sessions;
    this.tables = tables;
    this.freshness = freshness;
    this.lineage = lineage;
    this.streams = streams;
  }

  @GetMapping("/login")
  ResponseEntity<String> login() {
    return html(
        page(
            "Sign in",
            """
            <form id="login" class="login">
              <label for="key">API key or token</label>
              <input id="key" name="key" type="password" autocomplete="off" autofocus>
              <button id="sign-in" type="submit">Sign in</button>
              <p id="error" class="error"></p>
            </form>
            <script>
            document.getElementById('login').addEventListener('submit', async (e) => {
              e.preventDefault();
              const key = document.getElementById('key').value.trim();
              const r = await fetch('/ui/session', {method: 'POST',
                  headers: {'Authorization': 'Bearer ' + key}});
              if (r.ok) { location.href = '/ui'; return; }
              const p = await r.json().catch(() => ({}));
              document.getElementById('error').textContent = p.detail || ('HTTP ' + r.status);
            });
            </script>
            """));
  }

  /** Turns the bearer token of this request into the page's cookie. */
  @PostMapping("/session")
  ResponseEntity<Void> session(HttpServletRequest request) {
    String token = sessions.open(Access.caller());
    ResponseCookie cookie =
        ResponseCookie.from(UiCookie.NAME, token)
            .httpOnly(true)
            .secure(request.isSecure())
            .sameSite("Strict")
            .path("/ui")
            .maxAge(UiSessions.LIFETIME)
            .build();
    return ResponseEntity.noContent().header(HttpHeaders.SET_COOKIE, cookie.toString()).build();
  }

  @GetMapping("/logout")
  ResponseEntity<Void> logout(
      @CookieValue(value = UiCookie.NAME, required = false) String session) {
    if (session != null && session.startsWith(UiSessions.PREFIX)) {
      sessions.close(session);
    }
    ResponseCookie gone = ResponseCookie.from(UiCookie.NAME, "").path("/ui").maxAge(0).build();
    return ResponseEntity.status(303)
        .header(HttpHeaders.SET_COOKIE, gone.toString())
        .header(HttpHeaders.LOCATION, "/ui/login")
        .build();
  }

  @GetMapping
  ResponseEntity<String> index(
      @RequestParam(required = false) Integer limit,
      @RequestParam(required = false) String pageToken) {
    String body =
        """
        <p class="who">Signed in as %s · <a href="/ui/logout">sign out</a></p>
        <section>
          <h2>Tables</h2>
          <table id="tables">
            <thead><tr><th>Table</th><th>Kind</th><th>Phase</th><th>Pool</th><th>Mode</th><th>Freshness</th>
              <th>Lag</th><th>Last refresh</th><th>Next refresh</th></tr></thead>
            <tbody id="rows">%s</tbody>
          </table>
        </section>
        <section>
          <h2>Lineage</h2>
          <div id="lineage">%s</div>
        </section>
        <section>
          <h2>Events <span id="events-of"></span></h2>
          <p class="hint">Choose a table to follow its events live.</p>
          <table id="events"><thead><tr><th>At</th><th>Object</th><th>Type</th><th>Reason</th>
            <th>Message</th></tr></thead><tbody></tbody></table>
        </section>
        <script>
        let source = null;
        function follow(catalog, database, name) {
          if (source) source.close();
          document.getElementById('events-of').textContent = '· ' + catalog + '.' + database + '.' + name;
          const body = document.querySelector('#events tbody');
          body.innerHTML = '';
          source = new EventSource('/ui/events?catalog=' + encodeURIComponent(catalog)
              + '&database=' + encodeURIComponent(database) + '&name=' + encodeURIComponent(name));
          source.addEventListener('event', (m) => {
            const e = JSON.parse(m.data);
            const tr = document.createElement('tr');
            tr.className = 'event ' + e.type.toLowerCase();
            for (const v of [e.at, e.table || '', e.type, e.reason, e.message || '']) {
              const td = document.createElement('td'); td.textContent = v; tr.appendChild(td);
            }
            body.appendChild(tr);
          });
        }
        document.getElementById('rows').addEventListener('click', (e) => {
          const a = e.target.closest('a[data-name]');
          if (!a) return;
          e.preventDefault();
          follow(a.dataset.catalog, a.dataset.database, a.dataset.name);
        });
        async function refresh() {
          try {
            const r = await fetch('/ui/rows' + location.search);
            if (r.ok) document.getElementById('rows').innerHTML = await r.text();
            const l = await fetch('/ui/lineage.svg');
            if (l.ok) document.getElementById('lineage').innerHTML = await l.text();
          } catch (e) { /* the next round tries again */ }
        }
        setInterval(refresh, 2000);
        </script>
        """
            .formatted(escape(Access.caller().name()), rows(limit, pageToken), svg());
    return html(page("Tributary", body));
  }

  /** The rows of the tables table, for the page's refresh. */
  @GetMapping("/rows")
  ResponseEntity<String> rowsFragment(
      @RequestParam(required = false) Integer limit,
      @RequestParam(required = false) String pageToken) {
    return html(rows(limit, pageToken));
  }

  @GetMapping("/lineage.svg")
  ResponseEntity<String> lineageSvg() {
    return ResponseEntity.ok()
        .contentType(MediaType.valueOf("image/svg+xml"))
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .body(svg());
  }

  @GetMapping(value = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  SseEmitter events(
      @RequestParam String catalog,
      @RequestParam String database,
      @RequestParam String name,
      @RequestHeader(value = "Last-Event-ID", required = false) String lastEventId) {
    Access.require(Role.VIEWER, catalog, database);
    return streams.table(
        new ObjectName(catalog, database, name), EventStreams.startAfter(lastEventId, null));
  }

  /**
   * A page of the tables the caller may see, in name order, as the API pages them ({@link Paging}):
   * {@code limit} rows after the token's table, and a last row linking the next page.
   */
  private String rows(Integer limit, String pageToken) {
    String list = "ui-tables";
    int size = Paging.limit(limit);
    Paging.Page<MaterializedTable> page =
        Paging.fetched(
            list,
            tables.pageAcross(Access::sees, Paging.after(list, pageToken), size + 1),
            size,
            MaterializedTable::qualifiedName);
    if (page.items().isEmpty()) {
      return "<tr><td colspan=\"9\" class=\"empty\">No tables yet.</td></tr>";
    }
    StringBuilder out = new StringBuilder();
    for (MaterializedTable t : page.items()) {
      ObjectName n = t.objectName();
      TableSpec spec = tables.spec(t);
      Freshness.Summary f = freshness.of(t, spec);
      out.append("<tr data-table=\"").append(escape(t.qualifiedName())).append("\">");
      out.append("<td><a href=\"#events\" data-catalog=\"")
          .append(escape(n.catalog()))
          .append("\" data-database=\"")
          .append(escape(n.database()))
          .append("\" data-name=\"")
          .append(escape(n.name()))
          .append("\">")
          .append(escape(t.qualifiedName()))
          .append("</a></td>");
      cell(out, spec.kind() == TableSpec.Kind.PIPELINE_TABLE ? "pipeline" : "materialized", null);
      cell(out, t.getPhase().name(), "phase " + t.getPhase().name().toLowerCase());
      cell(
          out,
          spec.definition() == null ? "" : TableOptions.pool(spec.definition().options()),
          "pool");
      cell(out, f == null ? "" : f.refreshMode(), null);
      cell(out, f == null ? "" : f.freshness().sql(), null);
      cell(
          out,
          f == null || f.lagSeconds() == null
              ? ""
              : Math.round(f.lagSeconds())
                  + " s"
                  + (Boolean.FALSE.equals(f.fresh()) ? " (late)" : ""),
          "lag");
      cell(out, f == null ? "" : time(f.lastRefresh()), null);
      cell(out, f == null ? "" : time(f.nextRefresh()), null);
      out.append("</tr>\n");
    }
    if (page.nextPageToken() != null) {
      out.append("<tr class=\"more\"><td colspan=\"9\"><a id=\"next-page\" href=\"/ui?")
          .append(limit == null ? "" : "limit=" + Paging.limit(limit) + "&amp;")
          .append("pageToken=")
          .append(escape(page.nextPageToken()))
          .append("\">Next page</a></td></tr>\n");
    }
    return out.toString();
  }

  private static void cell(StringBuilder out, String text, String cssClass) {
    out.append("<td").append(cssClass == null ? "" : " class=\"" + cssClass + "\"").append('>');
    out.append(escape(text == null ? "" : text)).append("</td>");
  }

  private static String time(Instant at) {
    return at == null ? "" : at.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** The lineage as an SVG: a column per depth (sources first), edges left to right. */
  private String svg() {
    Lineage.Graph graph = lineage.graph(n -> Access.sees(n.catalog(), n.database()));
    if (graph.nodes().isEmpty()) {
      return "<p class=\"empty\">Nothing to draw yet.</p>";
    }
    Map<String, Integer> depth = new HashMap<>();
    graph.nodes().forEach(n -> depth.put(n.id(), 0));
    for (int round = 0; round < graph.nodes().size(); round++) {
      boolean moved = false;
      for (Lineage.Edge e : graph.edges()) {
        int next = depth.getOrDefault(e.from(), 0) + 1;
        if (depth.getOrDefault(e.to(), 0) < next) {
          depth.put(e.to(), next);
          moved = true;
        }
      }
      if (!moved) {
        break;
      }
    }
    Map<Integer, Integer> rowsPerColumn = new HashMap<>();
    Map<String, int[]> at = new HashMap<>();
    int width = 240;
    int height = 44;
    for (Lineage.Node n : graph.nodes()) {
      int column = depth.get(n.id());
      int row = rowsPerColumn.merge(column, 1, Integer::sum) - 1;
      at.put(n.id(), new int[] {10 + column * (width + 60), 10 + row * (height + 16)});
    }
    int maxX = at.values().stream().mapToInt(p -> p[0]).max().orElse(0) + width + 10;
    int maxY = at.values().stream().mapToInt(p -> p[1]).max().orElse(0) + height + 10;
    StringBuilder svg = new StringBuilder();
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lineage\" width=\"")
        .append(maxX)
        .append("\" height=\"")
        .append(maxY)
        .append("\" font-family=\"sans-serif\" font-size=\"12\">")
        .append(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\""
                + " markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\""
                + " fill=\"#555\"/></marker></defs>");
    for (Lineage.Edge e : graph.edges()) {
      int[] from = at.get(e.from());
      int[] to = at.get(e.to());
      if (from == null || to == null) {
        continue;
      }
      svg.append("<line x1=\"")
          .append(from[0] + width)
          .append("\" y1=\"")
          .append(from[1] + height / 2)
          .append("\" x2=\"")
          .append(to[0])
          .append("\" y2=\"")
          .append(to[1] + height / 2)
          .append("\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>");
    }
    for (Lineage.Node n : graph.nodes()) {
      int[] p = at.get(n.id());
      String fill =
          switch (n.type()) {
            case "SOURCE_TABLE" -> "#e8f0fe";
            case "FLOW" -> "#fef7e0";
            case "PIPELINE_TABLE" -> "#e6f4ea";
            default -> "#f1f3f4";
          };
      svg.append("<g class=\"node\" data-id=\"").append(escape(n.id())).append("\">");
      svg.append("<rect x=\"")
          .append(p[0])
          .append("\" y=\"")
          .append(p[1])
          .append("\" rx=\"")
          .append(n.type().equals("FLOW") ? 20 : 4)
          .append("\" width=\"")
          .append(width)
          .append("\" height=\"")
          .append(height)
          .append("\" fill=\"")
          .append(fill)
          .append("\" stroke=\"#888\"/>");
      svg.append("<text x=\"")
          .append(p[0] + 8)
          .append("\" y=\"")
          .append(p[1] + 18)
          .append("\">")
          .append(escape(n.id()))
          .append("</text>");
      svg.append("<text x=\"")
          .append(p[0] + 8)
          .append("\" y=\"")
          .append(p[1] + 34)
          .append("\" fill=\"#555\">")
          .append(escape(n.type().toLowerCase().replace('_', ' ')))
          .append(n.phase() == null ? "" : " · " + escape(n.phase()))
          .append("</text></g>");
    }
    return svg.append("</svg>").toString();
  }

  private static String page(String title, String body) {
    return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>%s</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
          body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #202124; }
          h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; }
          table { border-collapse: collapse; width: 100%%; font-size: 0.9rem; }
          th, td { text-align: left; padding: 0.3rem 0.6rem; border-bottom: 1px solid #ddd; }
          #events td:first-child { white-space: nowrap; }
          td.phase.running, td.phase.succeeded { color: #137333; font-weight: 600; }
          td.phase.failed, td.phase.failing, tr.event.warning td { color: #a50e0e; font-weight: 600; }
          td.phase.stopped { color: #5f6368; }
          .who, .hint, .empty { color: #5f6368; font-size: 0.85rem; }
          .login { display: flex; flex-direction: column; max-width: 24rem; gap: 0.5rem; }
          .error { color: #a50e0e; }
          #lineage { overflow-x: auto; }
        </style></head>
        <body><h1>Tributary</h1>
        %s
        </body></html>
        """
        .formatted(escape(title), body);
  }

  private static ResponseEntity<String> html(String body) {
    return ResponseEntity.ok()
        .contentType(HTML)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'")
        .body(body);
  }

  static String escape(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
