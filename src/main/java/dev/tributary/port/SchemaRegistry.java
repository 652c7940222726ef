package dev.tributary.port;

import java.util.List;
import java.util.Optional;

/** A Confluent-compatible Schema Registry. A missing subject is an answer, not an error. */
public interface SchemaRegistry {

  /**
   * Registers the schema under the subject and returns its global id; registering the same schema
   * again returns the same id.
   *
   * @throws IncompatibleSchemaException if the subject's compatibility rule rejects it
   * @throws InvalidSchemaException if the registry cannot parse it
   */
  int register(String subject, Schema schema);

  Optional<RegisteredSchema> latest(String subject);

  /** The schema with this global id (as records in the Confluent wire format name it). */
  Optional<Schema> byId(int id);

  /** True when the schema may be registered next; an absent subject accepts anything. */
  boolean isCompatible(String subject, Schema schema);

  void setCompatibility(String subject, Compatibility level);

  /** The level set on this subject, empty when it follows the global default. */
  Optional<Compatibility> compatibility(String subject);

  /** Deletes the subject, softly or for good; returns the versions deleted (empty if none). */
  List<Integer> deleteSubject(String subject, boolean permanent);

  /** Schema formats understood by the registry. */
  enum SchemaType {
    AVRO,
    JSON,
    PROTOBUF
  }

  /** Compatibility levels, as named by the Confluent API. */
  enum Compatibility {
    NONE,
    BACKWARD,
    BACKWARD_TRANSITIVE,
    FORWARD,
    FORWARD_TRANSITIVE,
    FULL,
    FULL_TRANSITIVE
  }

  /** A schema document and its format. */
  record Schema(SchemaType type, String text) {}

  /** A schema as stored under a subject. */
  record RegisteredSchema(String subject, int version, int id, Schema schema) {}

  /** The registry's compatibility rule rejected a schema (HTTP 409). */
  final class IncompatibleSchemaException extends RemoteSystemException {
    public IncompatibleSchemaException(String message) {
      super(ExternalSystem.SCHEMA_REGISTRY, message, false);
    }
  }

  /** The registry could not parse a schema (HTTP 422). */
  final class InvalidSchemaException extends RemoteSystemException {
    public InvalidSchemaException(String message) {
      super(ExternalSystem.SCHEMA_REGISTRY, message, false);
    }
  }
}
