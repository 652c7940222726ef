package dev.tributary;

import dev.tributary.cli.Cli;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the Tributary control plane. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class TributaryApplication {

  /**
   * The service, when there are no arguments or the first is {@code serve} (the rest go to Spring
   * Boot, e.g. {@code serve --server.port=8081}); anything else is the command line ({@code plan},
   * {@code status}, {@code --help}, ...), which starts no service.
   */
  public static void main(String[] args) {
    if (!Cli.startsService(args)) {
      Cli.main(args);
      return;
    }
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    SpringApplication.run(TributaryApplication.class, rest);
  }
}
