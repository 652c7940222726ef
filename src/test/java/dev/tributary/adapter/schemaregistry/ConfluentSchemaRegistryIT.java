package dev.tributary.adapter.schemaregistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.SchemaRegistry.Compatibility;
import dev.tributary.port.SchemaRegistry.IncompatibleSchemaException;
import dev.tributary.port.SchemaRegistry.InvalidSchemaException;
import dev.tributary.port.SchemaRegistry.RegisteredSchema;
import dev.tributary.port.SchemaRegistry.Schema;
import dev.tributary.port.SchemaRegistry.SchemaType;
import dev.tributary.system.HttpClients;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

@TributaryIT
class ConfluentSchemaRegistryIT {

  static final Schema ORDER_JSON =
      new Schema(
          SchemaType.JSON,
          """
          {"type":"object","title":"order","properties":{
            "order_id":{"type":"string"},
            "price":{"type":"number"}},
           "additionalProperties":false}""");
  static final Schema ORDER_AVRO =
      new Schema(
          SchemaType.AVRO,
          """
          {"type":"record","name":"order","fields":[
            {"name":"order_id","type":"string"},
            {"name":"price","type":"double"}]}""");
  static final Schema ORDER_AVRO_WITH_REQUIRED_FIELD =
      new Schema(
          SchemaType.AVRO,
          """
          {"type":"record","name":"order","fields":[
            {"name":"order_id","type":"string"},
            {"name":"price","type":"double"},
            {"name":"currency","type":"string"}]}""");
  static final Schema ORDER_AVRO_WITH_OPTIONAL_FIELD =
      new Schema(
          SchemaType.AVRO,
          """
          {"type":"record","name":"order","fields":[
            {"name":"order_id","type":"string"},
            {"name":"price","type":"double"},
            {"name":"note","type":["null","string"],"default":null}]}""");

  @Autowired ConfluentSchemaRegistry registry;

  private static String subject() {
    return "it-" + UUID.randomUUID() + "-value";
  }

  @Test
  void shouldRegisterJsonSchemaAndReturnSameIdWhenRegisteredAgain() {
    String subject = subject();

    int id = registry.register(subject, ORDER_JSON);
    int again = registry.register(subject, ORDER_JSON);

    assertThat(again).isEqualTo(id);
    RegisteredSchema latest = registry.latest(subject).orElseThrow();
    assertThat(latest.id()).isEqualTo(id);
    assertThat(latest.version()).isEqualTo(1);
    assertThat(latest.schema().type()).isEqualTo(SchemaType.JSON);
    assertThat(latest.schema().text()).contains("order_id");
  }

  @Test
  void shouldRegisterAvroSchemaAndEvolveItCompatibly() {
    String subject = subject();
    registry.register(subject, ORDER_AVRO);

    assertThat(registry.isCompatible(subject, ORDER_AVRO_WITH_OPTIONAL_FIELD)).isTrue();
    assertThat(registry.isCompatible(subject, ORDER_AVRO_WITH_REQUIRED_FIELD)).isFalse();
    registry.register(subject, ORDER_AVRO_WITH_OPTIONAL_FIELD);

    RegisteredSchema latest = registry.latest(subject).orElseThrow();
    assertThat(latest.version()).isEqualTo(2);
    assertThat(latest.schema().type()).isEqualTo(SchemaType.AVRO);
  }

  @Test
  void shouldRaiseIncompatibleWhenRegisteringABreakingChange() {
    String subject = subject();
    registry.register(subject, ORDER_AVRO);

    assertThatThrownBy(() -> registry.register(subject, ORDER_AVRO_WITH_REQUIRED_FIELD))
        .isInstanceOf(IncompatibleSchemaException.class)
        .hasMessageContaining(subject);
  }

  @Test
  void shouldRaiseInvalidWhenSchemaCannotBeParsed() {
    assertThatThrownBy(
            () ->
                registry.register(subject(), new Schema(SchemaType.AVRO, "{\"type\":\"recrod\"}")))
        .isInstanceOf(InvalidSchemaException.class);
  }

  @Test
  void shouldSetAndReadSubjectCompatibility() {
    String subject = subject();
    registry.register(subject, ORDER_AVRO);

    registry.setCompatibility(subject, Compatibility.NONE);

    assertThat(registry.compatibility(subject)).contains(Compatibility.NONE);
    assertThat(registry.isCompatible(subject, ORDER_AVRO_WITH_REQUIRED_FIELD)).isTrue();
  }

  @Test
  void shouldAnswerEmptyForMissingSubject() {
    String subject = subject();

    assertThat(registry.latest(subject)).isEmpty();
    assertThat(registry.isCompatible(subject, ORDER_AVRO)).isTrue();
    assertThat(registry.deleteSubject(subject, true)).isEmpty();
  }

  @Test
  void shouldSoftDeleteThenPermanentlyDeleteSubject() {
    String subject = subject();
    registry.register(subject, ORDER_AVRO);
    registry.register(subject, ORDER_AVRO_WITH_OPTIONAL_FIELD);

    assertThat(registry.deleteSubject(subject, false)).containsExactly(1, 2);
    assertThat(registry.latest(subject)).isEmpty();
    registry.deleteSubject(subject, true);

    assertThat(registry.subjects()).doesNotContain(subject);
    // A permanently deleted subject starts again at version 1.
    registry.register(subject, ORDER_JSON);
    assertThat(registry.latest(subject).orElseThrow().version()).isEqualTo(1);
  }

  @Test
  void shouldTreatA404WithoutRegistryErrorCodeAsAnErrorNotAsAbsence() {
    URI withoutPrefix = URI.create(LocalStack.get().registryUrl().resolve("/").toString());
    ConfluentSchemaRegistry wrongUrl =
        new ConfluentSchemaRegistry(
            HttpClients.restClient(withoutPrefix, Duration.ofSeconds(5)).build());

    assertThatThrownBy(() -> wrongUrl.latest(subject())).isInstanceOf(RemoteSystemException.class);
  }

  @Test
  void shouldReportUnavailableWhenRegistryCannotBeReached() {
    ConfluentSchemaRegistry unreachable =
        new ConfluentSchemaRegistry(
            HttpClients.restClient(
                    URI.create("http://127.0.0.1:1/apis/ccompat/v7"), Duration.ofSeconds(2))
                .build());

    assertThatThrownBy(() -> unreachable.latest(subject()))
        .isInstanceOf(DependencyUnavailableException.class);
  }
}
