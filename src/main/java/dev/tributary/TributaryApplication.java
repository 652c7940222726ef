package dev.tributary;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the Tributary control plane. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class TributaryApplication {

  public static void main(String[] args) {
    SpringApplication.run(TributaryApplication.class, args);
  }
}
