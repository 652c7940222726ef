package dev.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.security.SecurityProperties;
import dev.tributary.system.TributaryProperties;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code deploy/kubernetes} cannot be applied here (no cluster), so it is read: the example overlay
 * is rendered ({@link Kustomize}) and every object parsed into fabric8's typed Kubernetes model,
 * where a field the model does not know fails (the FlinkDeployment into the schema of the Flink
 * Kubernetes Operator's own CRD, its pod template into fabric8's Pod). Then the references between
 * them: every setting the service container gets is one the service reads and the ones it needs are
 * set, every Secret and ConfigMap key referenced exists, probes ask paths the service serves
 * without a key, ports and selectors meet, the URLs the service is given name services of the
 * manifests on their ports, and the PrometheusRule is the alert file.
 */
class KubernetesManifestsTest {

  static final Path BASE = Path.of("deploy", "kubernetes", "base");
  static final Path EXAMPLE = Path.of("deploy", "kubernetes", "overlays", "example");
  static final Path FLINK_CRD =
      Path.of(
          "target",
          "flink-operator-crds",
          "META-INF",
          "fabric8",
          "flinkdeployments.flink.apache.org-v1.yml");

  static final Map<String, Class<? extends HasMetadata>> KINDS =
      Map.ofEntries(
          Map.entry("Namespace", Namespace.class),
          Map.entry("ServiceAccount", ServiceAccount.class),
          Map.entry("ConfigMap", ConfigMap.class),
          Map.entry("Secret", Secret.class),
          Map.entry("Service", Service.class),
          Map.entry("Deployment", Deployment.class),
          Map.entry("StatefulSet", StatefulSet.class),
          Map.entry("Job", Job.class),
          Map.entry("PodDisruptionBudget", PodDisruptionBudget.class),
          Map.entry("ServiceMonitor", ServiceMonitor.class),
          Map.entry("PrometheusRule", PrometheusRule.class));

  /** Settings the service cannot start without. */
  static final Set<String> REQUIRED =
      Set.of("SPRING_DATASOURCE_URL", "SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD");

  /** Spring Boot's own settings (SPRING_*, SERVER_*, ...) and the JVM's: not ours to list. */
  static final List<String> PLATFORM_PREFIXES =
      List.of("SPRING_", "SERVER_", "MANAGEMENT_", "LOGGING_");

  static final Set<String> PLATFORM = Set.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "HOSTNAME");

  static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * The newest operator API served here (1.10.0) predates Flink 2: its flinkVersion enum ends at
   * v1_20. The manifests run Flink 2.2 and need an operator release that knows v2_2; that value
   * alone is accepted beyond the enum.
   */
  static final Map<String, List<String>> FLINK_2 =
      Map.of("FlinkDeployment.spec.flinkVersion", List.of("v2_2"));

  static List<Map<String, Object>> objects;

  @BeforeAll
  static void render() throws IOException {
    objects = Kustomize.render(EXAMPLE);
  }

  @Test
  void shouldParseEveryObjectIntoTheTypedModelWithNoUnknownField() {
    List<String> problems = new ArrayList<>();
    for (Map<String, Object> object : objects) {
      String kind = (String) object.get("kind");
      String where = kind + "/" + Kustomize.name(object);
      if (kind.equals("FlinkDeployment")) {
        continue; // shouldMatchTheFlinkOperatorsSchema
      }
      Class<? extends HasMetadata> type = KINDS.get(kind);
      if (type == null) {
        problems.add(where + ": no model class for kind " + kind);
        continue;
      }
      assertThat(object.get("apiVersion")).as(where).isEqualTo(HasMetadata.getApiVersion(type));
      unknownFields(MAPPER.convertValue(object, type), where, problems);
    }
    assertThat(problems).isEmpty();
    assertThat(objects).extracting(o -> o.get("kind")).contains("FlinkDeployment", "Deployment");
  }

  @Test
  void shouldFailOnAFieldTheModelDoesNotKnow() {
    Map<String, Object> deployment = copy(object("Deployment", "tributary"));
    Kustomize.mergePatch(deployment, Map.of("spec", Map.of("replica", 3)));
    List<String> problems = new ArrayList<>();

    unknownFields(MAPPER.convertValue(deployment, Deployment.class), "Deployment", problems);

    assertThat(problems).containsExactly("Deployment.spec: unknown field replica");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldMatchTheFlinkOperatorsSchema() throws IOException {
    Map<String, Object> flink = object("FlinkDeployment", "flink");
    Map<String, Object> crd = new Yaml().load(Files.readString(FLINK_CRD));
    String version = ((String) flink.get("apiVersion")).substring("flink.apache.org/".length());
    Map<String, Object> schema =
        ((List<Map<String, Object>>) ((Map<String, Object>) crd.get("spec")).get("versions"))
            .stream()
                .filter(v -> v.get("name").equals(version))
                .map(
                    v ->
                        (Map<String, Object>)
                            ((Map<String, Object>) v.get("schema")).get("openAPIV3Schema"))
                .findFirst()
                .orElseThrow();
    List<String> problems = new ArrayList<>();

    CrdSchema.validateRoot(flink, schema, "FlinkDeployment", FLINK_2, problems);
    // The pod template: fabric8's Pod, strictly.
    Map<String, Object> template =
        (Map<String, Object>) ((Map<String, Object>) flink.get("spec")).get("podTemplate");
    unknownFields(
        MAPPER.convertValue(template, Pod.class), "FlinkDeployment.spec.podTemplate", problems);

    assertThat(problems).isEmpty();
    // The Flink the image holds, and the state in S3.
    Map<String, Object> spec = (Map<String, Object>) flink.get("spec");
    assertThat((String) spec.get("image")).startsWith("flink:2.2.");
    assertThat((Map<String, Object>) spec.get("flinkConfiguration"))
        .containsEntry("execution.checkpointing.dir", "s3://tributary/checkpoints")
        .containsEntry("execution.checkpointing.savepoint-dir", "s3://tributary/savepoints")
        .containsEntry("s3.endpoint", "http://minio:9000");
  }

  @Test
  void shouldRefuseAFlinkDeploymentFieldTheOperatorDoesNotKnow() throws IOException {
    Map<String, Object> flink = copy(object("FlinkDeployment", "flink"));
    Kustomize.mergePatch(
        flink,
        Map.of("spec", Map.of("taskManagers", 2, "flinkConfiguration", Map.of("rest.port", 8081))));
    List<String> problems = new ArrayList<>();
    Map<String, Object> schema = flinkSchema();

    CrdSchema.validateRoot(flink, schema, "FlinkDeployment", FLINK_2, problems);

    assertThat(problems)
        .contains(
            "FlinkDeployment.spec: unknown field taskManagers",
            "FlinkDeployment.spec.flinkConfiguration.rest.port: 8081 is not a string");
  }

  @Test
  void shouldGiveTheServiceOnlySettingsItReadsAndEveryOneItNeeds() {
    Map<String, String> env = serviceEnvironment();
    Set<String> known = knownSettings();
    List<String> unknown = new ArrayList<>();
    for (String name : env.keySet()) {
      boolean platform =
          PLATFORM.contains(name) || PLATFORM_PREFIXES.stream().anyMatch(name::startsWith);
      if (!platform
          && known.stream()
              .noneMatch(k -> name.equals(k) || (k.endsWith("_") && name.startsWith(k)))) {
        unknown.add(name);
      }
    }

    assertThat(unknown).as("settings the service does not read (known: %s)", known).isEmpty();
    assertThat(env.keySet()).containsAll(REQUIRED);
    assertThat(known)
        .contains("TRIBUTARY_KAFKA_BOOTSTRAP_SERVERS", "TRIBUTARY_FLINK_STORAGE_S3_ENDPOINT");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldDefineEverySecretAndConfigMapKeyThatIsReferenced() {
    Map<String, Set<String>> secrets = new HashMap<>();
    Map<String, Set<String>> configMaps = new HashMap<>();
    for (Map<String, Object> o : objects) {
      Set<String> keys = new HashSet<>();
      Stream.of("data", "stringData")
          .map(f -> (Map<String, Object>) o.get(f))
          .filter(m -> m != null)
          .forEach(m -> keys.addAll(m.keySet()));
      if (o.get("kind").equals("Secret")) {
        secrets.put(Kustomize.name(o), keys);
      } else if (o.get("kind").equals("ConfigMap")) {
        configMaps.put(Kustomize.name(o), keys);
      }
    }
    List<String> missing = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Map<String, Object> o : objects) {
      walk(
          o,
          (Object node) -> {
            if (node instanceof Map<?, ?> m) {
              check(m.get("secretKeyRef"), secrets, "Secret", missing, seen);
              check(m.get("configMapKeyRef"), configMaps, "ConfigMap", missing, seen);
              // ServiceMonitor: authorization.credentials
              if (m.get("credentials") instanceof Map<?, ?> c) {
                check(c, secrets, "Secret", missing, seen);
              }
              if (m.get("configMapRef") instanceof Map<?, ?> ref
                  && !configMaps.containsKey(ref.get("name"))) {
                missing.add("ConfigMap " + ref.get("name"));
              }
              if (m.get("secretRef") instanceof Map<?, ?> ref
                  && !secrets.containsKey(ref.get("name"))) {
                missing.add("Secret " + ref.get("name"));
              }
            }
          });
    }

    assertThat(missing).isEmpty();
    assertThat(seen)
        .contains(
            "Secret tributary-secrets/bootstrap-admin-key",
            "Secret tributary-secrets/secret-encryption-key",
            "Secret tributary-secrets/datasource-password",
            "Secret tributary-metrics/api-key",
            "ConfigMap flink-storage/flink-properties");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldProbePathsTheServiceServesWithoutAKey() throws IOException {
    Map<String, Object> yml =
        new Yaml().load(Files.readString(Path.of("src/main/resources/application.yml")));
    Map<String, Object> health =
        (Map<String, Object>)
            ((Map<String, Object>) ((Map<String, Object>) yml.get("management")).get("endpoint"))
                .get("health");
    assertThat(((Map<String, Object>) health.get("probes")).get("enabled")).isEqualTo(true);
    assertThat((Map<String, Object>) health.get("group")).containsKey("readiness");
    String security =
        Files.readString(
            Path.of("src/main/java/dev/tributary/security/SecurityConfiguration.java"));
    Map<String, Object> container = serviceContainer();
    Set<String> ports = portNames(container);

    for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
      Map<String, Object> get =
          (Map<String, Object>) ((Map<String, Object>) container.get(probe)).get("httpGet");
      assertThat(get).as(probe).isNotNull();
      String path = (String) get.get("path");
      assertThat(path).as(probe).isIn("/actuator/health/liveness", "/actuator/health/readiness");
      assertThat(security).as("%s is served without a key", path).contains("\"" + path + "\"");
      assertThat(ports).as(probe + " port").contains(String.valueOf(get.get("port")));
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldConnectServicesPortsAndSelectors() {
    List<String> problems = new ArrayList<>();
    // Every Service selects a pod template that has its target ports.
    for (Map<String, Object> service : kind("Service")) {
      Map<String, Object> spec = (Map<String, Object>) service.get("spec");
      Map<String, Object> selector = (Map<String, Object>) spec.get("selector");
      List<Map<String, Object>> pods = workloadsSelectedBy(selector);
      if (pods.isEmpty()) {
        problems.add("Service " + Kustomize.name(service) + " selects no pods");
      }
      for (Map<String, Object> port : (List<Map<String, Object>>) spec.get("ports")) {
        String target = String.valueOf(port.getOrDefault("targetPort", port.get("port")));
        for (Map<String, Object> workload : pods) {
          Set<String> names = new HashSet<>();
          Kustomize.containers(workload).forEach(c -> names.addAll(portNames(c)));
          if (!names.contains(target)) {
            problems.add(
                "Service "
                    + Kustomize.name(service)
                    + " targets port "
                    + target
                    + " that "
                    + Kustomize.name(workload)
                    + " lacks");
          }
        }
      }
    }
    // The PDB and the ServiceMonitor find what they are for.
    for (Map<String, Object> pdb : kind("PodDisruptionBudget")) {
      Map<String, Object> selector =
          (Map<String, Object>)
              ((Map<String, Object>) ((Map<String, Object>) pdb.get("spec")).get("selector"))
                  .get("matchLabels");
      assertThat(workloadsSelectedBy(selector))
          .extracting(Kustomize::name)
          .containsExactly("tributary");
    }
    Map<String, Object> monitor = kind("ServiceMonitor").get(0);
    Map<String, Object> monitorSpec = (Map<String, Object>) monitor.get("spec");
    Map<String, Object> endpoint =
        ((List<Map<String, Object>>) monitorSpec.get("endpoints")).get(0);
    assertThat(endpoint.get("path")).isEqualTo("/actuator/prometheus");
    Map<String, Object> tributary = object("Service", "tributary");
    assertThat((Map<String, Object>) Kustomize.metadata(tributary, "labels"))
        .containsAllEntriesOf(
            (Map<String, Object>)
                ((Map<String, Object>) monitorSpec.get("selector")).get("matchLabels"));
    assertThat(
            ((List<Map<String, Object>>)
                ((Map<String, Object>) tributary.get("spec")).get("ports")))
        .extracting(p -> p.get("name"))
        .contains(endpoint.get("port"));
    // The service listens where its container port says (SERVER_PORT, default 8080).
    Map<String, String> env = serviceEnvironment();
    assertThat(
            ((List<Map<String, Object>>) serviceContainer().get("ports"))
                .get(0)
                .get("containerPort"))
        .isEqualTo(Integer.parseInt(env.getOrDefault("SERVER_PORT", "8080")));
    // The SQL Gateway listens on its container port.
    Map<String, Object> gateway =
        Kustomize.containers(object("Deployment", "flink-sql-gateway")).stream()
            .filter(c -> c.get("name").equals("sql-gateway"))
            .findFirst()
            .orElseThrow();
    assertThat((List<String>) gateway.get("command"))
        .contains(
            "-Dsql-gateway.endpoint.rest.port="
                + ((List<Map<String, Object>>) gateway.get("ports")).get(0).get("containerPort"));
    assertThat(problems).isEmpty();
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldPointTheServiceAtServicesOfTheManifests() {
    Map<String, Integer> services = new HashMap<>();
    for (Map<String, Object> service : kind("Service")) {
      for (Map<String, Object> port :
          (List<Map<String, Object>>) ((Map<String, Object>) service.get("spec")).get("ports")) {
        services.put(Kustomize.name(service) + ":" + port.get("port"), 1);
      }
    }
    // The operator creates <name>-rest on rest.port for a FlinkDeployment.
    for (Map<String, Object> flink : kind("FlinkDeployment")) {
      Map<String, Object> conf =
          (Map<String, Object>) ((Map<String, Object>) flink.get("spec")).get("flinkConfiguration");
      services.put(Kustomize.name(flink) + "-rest:" + conf.getOrDefault("rest.port", "8081"), 1);
    }
    Map<String, String> env = serviceEnvironment();
    List<String> urls = new ArrayList<>();
    for (String setting :
        List.of(
            "TRIBUTARY_FLINK_SQL_GATEWAY_URL",
            "TRIBUTARY_FLINK_REST_URL",
            "TRIBUTARY_FLINK_STORAGE_S3_ENDPOINT")) {
      URI uri = URI.create(env.get(setting));
      urls.add(setting + " -> " + uri.getHost() + ":" + uri.getPort());
      assertThat(services)
          .as(setting + " = " + uri)
          .containsKey(uri.getHost() + ":" + uri.getPort());
    }
    Matcher jdbc =
        Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/.*")
            .matcher(env.get("SPRING_DATASOURCE_URL"));
    assertThat(jdbc.matches()).isTrue();
    assertThat(services).containsKey(jdbc.group(1) + ":" + jdbc.group(2));
    assertThat(urls).hasSize(3);
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldRunTheServiceAsTheOperatorsExpect() {
    Map<String, Object> deployment = object("Deployment", "tributary");
    Map<String, Object> spec = (Map<String, Object>) deployment.get("spec");
    assertThat(spec.get("replicas")).isEqualTo(2);
    PodSpec pod = MAPPER.convertValue(Kustomize.podSpec(deployment), PodSpec.class);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
    var container = pod.getContainers().get(0);
    assertThat(container.getResources().getLimits()).containsKey("memory");
    assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(container.getImage()).isEqualTo("registry.example.com/tributary:0.1.0");
    assertThat(serviceEnvironment().get("JAVA_TOOL_OPTIONS")).contains("MaxRAMPercentage");
    assertThat(Kustomize.metadata(deployment, null).get("namespace")).isEqualTo("tributary");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldCarryTheAlertFileInThePrometheusRule() throws IOException {
    Map<String, Object> rule = object("PrometheusRule", "tributary");
    Map<String, Object> alerts = new Yaml().load(Files.readString(ObservabilityFiles.RULES));

    assertThat(((Map<String, Object>) rule.get("spec")).get("groups"))
        .isEqualTo(alerts.get("groups"));
  }

  // -- helpers

  static Map<String, Object> object(String kind, String name) {
    return objects.stream()
        .filter(o -> o.get("kind").equals(kind) && Kustomize.name(o).equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + "/" + name));
  }

  static List<Map<String, Object>> kind(String kind) {
    return objects.stream().filter(o -> o.get("kind").equals(kind)).toList();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> copy(Map<String, Object> object) {
    return MAPPER.convertValue(object, LinkedHashMap.class);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> flinkSchema() throws IOException {
    Map<String, Object> crd = new Yaml().load(Files.readString(FLINK_CRD));
    return ((List<Map<String, Object>>) ((Map<String, Object>) crd.get("spec")).get("versions"))
        .stream()
            .filter(v -> v.get("name").equals("v1beta1"))
            .map(
                v ->
                    (Map<String, Object>)
                        ((Map<String, Object>) v.get("schema")).get("openAPIV3Schema"))
            .findFirst()
            .orElseThrow();
  }

  static Map<String, Object> serviceContainer() {
    return Kustomize.containers(object("Deployment", "tributary")).stream()
        .filter(c -> c.get("name").equals("tributary"))
        .findFirst()
        .orElseThrow();
  }

  /** Name to value (or a reference's description) of every variable the service container gets. */
  @SuppressWarnings("unchecked")
  static Map<String, String> serviceEnvironment() {
    Map<String, Object> container = serviceContainer();
    Map<String, String> env = new LinkedHashMap<>();
    for (Map<String, Object> from :
        (List<Map<String, Object>>) container.getOrDefault("envFrom", List.of())) {
      Map<String, Object> ref = (Map<String, Object>) from.get("configMapRef");
      Map<String, Object> data =
          (Map<String, Object>) object("ConfigMap", (String) ref.get("name")).get("data");
      data.forEach((k, v) -> env.put(k, String.valueOf(v)));
    }
    for (Map<String, Object> var :
        (List<Map<String, Object>>) container.getOrDefault("env", List.of())) {
      env.put(
          (String) var.get("name"),
          var.containsKey("value")
              ? String.valueOf(var.get("value"))
              : "(from " + var.get("valueFrom") + ")");
    }
    return env;
  }

  @SuppressWarnings("unchecked")
  static Set<String> portNames(Map<String, Object> container) {
    Set<String> names = new HashSet<>();
    for (Map<String, Object> port :
        (List<Map<String, Object>>) container.getOrDefault("ports", List.of())) {
      names.add(String.valueOf(port.get("name")));
      names.add(String.valueOf(port.get("containerPort")));
    }
    return names;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> workloadsSelectedBy(Map<String, Object> selector) {
    List<Map<String, Object>> selected = new ArrayList<>();
    for (Map<String, Object> o : objects) {
      Map<String, Object> spec = (Map<String, Object>) o.get("spec");
      if (spec == null || !(spec.get("template") instanceof Map<?, ?> template)) {
        continue;
      }
      Map<String, Object> metadata = (Map<String, Object>) template.get("metadata");
      Map<String, Object> labels =
          metadata == null
              ? Map.of()
              : (Map<String, Object>) metadata.getOrDefault("labels", Map.of());
      if (labels.entrySet().containsAll(selector.entrySet())) {
        selected.add(o);
      }
    }
    return selected;
  }

  @SuppressWarnings("unchecked")
  static void check(
      Object ref,
      Map<String, Set<String>> defined,
      String what,
      List<String> missing,
      List<String> seen) {
    if (ref instanceof Map<?, ?> r) {
      String name = String.valueOf(r.get("name"));
      String key = String.valueOf(r.get("key"));
      seen.add(what + " " + name + "/" + key);
      if (!defined.containsKey(name) || !defined.get(name).contains(key)) {
        missing.add(what + " " + name + "/" + key);
      }
    }
  }

  interface Visitor {
    void visit(Object node);
  }

  static void walk(Object node, Visitor visitor) {
    visitor.visit(node);
    if (node instanceof Map<?, ?> m) {
      m.values().forEach(v -> walk(v, visitor));
    } else if (node instanceof Collection<?> c) {
      c.forEach(v -> walk(v, visitor));
    }
  }

  /**
   * The environment variable of every setting the service reads: its configuration records (relaxed
   * binding: {@code tributary.kafka.bootstrap-servers} is {@code
   * TRIBUTARY_KAFKA_BOOTSTRAP_SERVERS}; a map is a prefix, ending in _) and every {@code ${...}}
   * and {@code getProperty("...")} of the main sources.
   */
  static Set<String> knownSettings() {
    Set<String> known = new TreeSet<>();
    settings(TributaryProperties.class, "tributary", known);
    settings(SecurityProperties.class, "tributary.security", known);
    Pattern property = Pattern.compile("(?:\\$\\{|getProperty\\(\\s*\")(tributary\\.[a-z0-9.-]+)");
    try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = property.matcher(Files.readString(source));
        while (m.find()) {
          known.add(env(m.group(1)));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return known;
  }

  static void settings(Class<?> type, String prefix, Set<String> known) {
    for (RecordComponent c : type.getRecordComponents()) {
      String name = prefix + "." + c.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
      Class<?> t = c.getType();
      if (t.isRecord()) {
        settings(t, name, known);
      } else if (Map.class.isAssignableFrom(t)) {
        known.add(env(name) + "_");
      } else {
        known.add(env(name));
      }
    }
  }

  static String env(String property) {
    return property.toUpperCase().replace('.', '_').replace('-', '_');
  }

  /**
   * Fields fabric8's model did not know: it keeps them in {@code additionalProperties} instead of
   * refusing them, so they are looked for in every object of the parsed tree.
   */
  static void unknownFields(Object node, String path, List<String> problems) {
    unknownFields(node, path, problems, new IdentityHashMap<>());
  }

  private static void unknownFields(
      Object node, String path, List<String> problems, Map<Object, Boolean> seen) {
    if (node == null || seen.put(node, true) != null) {
      return;
    }
    if (node instanceof Collection<?> c) {
      int i = 0;
      for (Object item : c) {
        unknownFields(item, path + "[" + i++ + "]", problems, seen);
      }
      return;
    }
    if (node instanceof Map<?, ?> m) {
      m.forEach((k, v) -> unknownFields(v, path + "." + k, problems, seen));
      return;
    }
    if (!(node instanceof KubernetesResource)
        || !node.getClass().getName().startsWith("io.fabric8")) {
      return;
    }
    for (Class<?> c = node.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        f.setAccessible(true);
        Object value;
        try {
          value = f.get(node);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
        if (f.getName().equals("additionalProperties") && value instanceof Map<?, ?> extra) {
          extra.keySet().forEach(k -> problems.add(path + ": unknown field " + k));
        } else if (!(f.getGenericType() instanceof ParameterizedType p
            && p.getRawType() == Map.class
            && f.getName().equals("additionalProperties"))) {
          unknownFields(value, path + "." + f.getName(), problems, seen);
        }
      }
    }
  }
}
