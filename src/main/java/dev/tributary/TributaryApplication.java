package dev.tributary;

import dev.tributary.cli.Cli;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the Tributary control plane. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class TributaryApplication {

  /**
   * The service; or, when the first argument is one of the command line's verbs ({@code plan},
   * {@code apply}, {@code status}, ...), the command line, which starts no service.
   */
  public static void main(String[] args) {
    if (Cli.isVerb(args)) {
      Cli.main(args);
      return;
    }
    SpringApplication.run(TributaryApplication.class, args);
  }
}
