# syntax=docker/dockerfile:1
# Multi-stage build: compile with the Maven wrapper, then run the layered jar as a non-root user.
# Production talks to external Flink, Kafka, Schema Registry and PostgreSQL (see docker-compose.yml);
# the embedded local stack, embedded PostgreSQL included, is test scope and is not in this image
# (DockerfileIT checks the jar it extracts: about 135 MB of jars, on a JRE base).

FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY mvnw pom.xml ./
COPY .mvn .mvn
# Warm the dependency cache in its own layer; only an optimisation, so a miss is not fatal.
RUN ./mvnw dependency:go-offline -Dmdep.skip=true || true
COPY db db
COPY openapi openapi
COPY src src
# maven.test.skip: no test compilation, and no unpacking of the registry used by the local stack.
RUN ./mvnw package -Dmaven.test.skip=true -Dmdep.skip=true \
 && SERVICE_JAR=$(ls target/tributary-*.jar | grep -v -e '-flink-format\.jar$' -e '/tributary-cli\.jar$') \
 && java -Djarmode=tools -jar "$SERVICE_JAR" extract --layers --launcher --destination target/extracted

# The service (the default target).
FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 tributary \
 && useradd --system --uid 10001 --gid tributary --no-create-home tributary
WORKDIR /app
# Least to most often changed, so a code change rebuilds only the last layer.
COPY --from=build /src/target/extracted/dependencies/ ./
COPY --from=build /src/target/extracted/spring-boot-loader/ ./
COPY --from=build /src/target/extracted/snapshot-dependencies/ ./
COPY --from=build /src/target/extracted/application/ ./
USER 10001:10001
EXPOSE 8080
# With a verb as first argument the same image is the command line and starts no service, e.g.
#   docker run --rm -v "$PWD/sql:/sql:ro" -e TRIBUTARY_URL -e TRIBUTARY_API_KEY tributary plan -f /sql
# Heap from the container's memory limit; an OutOfMemoryError ends the process (the orchestrator
# restarts it) instead of leaving it half alive.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "org.springframework.boot.loader.launch.JarLauncher"]
