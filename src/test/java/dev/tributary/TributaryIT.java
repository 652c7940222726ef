package dev.tributary;

import dev.tributary.local.LocalStackInitializer;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ContextConfiguration;

/**
 * An integration test of the whole service against the real local stack (PostgreSQL, Kafka,
 * Apicurio Registry, Flink with its SQL Gateway), shared by every such test in the JVM.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ContextConfiguration(initializers = LocalStackInitializer.class)
public @interface TributaryIT {}
