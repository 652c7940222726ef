package dev.tributary.system.web;

import java.util.Arrays;
import java.util.Collection;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * What is wrong with a JSON body, said without the names of Java classes: where (the field path)
 * and what (an unknown field, a value of the wrong kind, broken syntax).
 */
public final class JsonProblems {

  private JsonProblems() {}

  public static String describe(Throwable error) {
    Throwable e = error;
    while (e != null && !(e instanceof JacksonException)) {
      e = e.getCause();
    }
    if (!(e instanceof JacksonException json)) {
      return "the body is not valid JSON for this request";
    }
    String at = path(json);
    if (json instanceof UnrecognizedPropertyException unknown) {
      return "unknown field '"
          + unknown.getPropertyName()
          + "'"
          + (at.contains(".") ? " at " + at : "")
          + (unknown.getKnownPropertyIds() == null || unknown.getKnownPropertyIds().isEmpty()
              ? ""
              : "; known fields: "
                  + unknown.getKnownPropertyIds().stream()
                      .map(String::valueOf)
                      .sorted()
                      .collect(Collectors.joining(", ")));
    }
    if (json instanceof InvalidFormatException invalid) {
      return "'" + at + "' cannot be " + quoted(invalid.getValue()) + expected(invalid);
    }
    if (json instanceof MismatchedInputException mismatched) {
      return (at.isEmpty() ? "the body" : "'" + at + "'")
          + " has the wrong kind of value"
          + expected(mismatched);
    }
    var location = json.getLocation();
    return "the body is not valid JSON"
        + (location == null || location.getLineNr() < 0
            ? ""
            : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")");
  }

  private static String path(JacksonException e) {
    return e.getPath().stream()
        .map(r -> r.getPropertyName() != null ? r.getPropertyName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining("."))
        .replace(".[", "[");
  }

  private static String expected(MismatchedInputException e) {
    Class<?> type = e.getTargetType();
    if (type == null) {
      return "";
    }
    String kind =
        type == Boolean.class || type == boolean.class
            ? "a boolean (true or false)"
            : Number.class.isAssignableFrom(type) || type.isPrimitive()
                ? "a number in range"
                : type == String.class
                    ? "a string"
                    : type.isEnum()
                        ? "one of "
                            + Arrays.stream(type.getEnumConstants())
                                .map(String::valueOf)
                                .collect(Collectors.joining(", "))
                        : Collection.class.isAssignableFrom(type) || type.isArray()
                            ? "an array"
                            : "an object";
    return "; expected " + kind;
  }

  private static String quoted(Object value) {
    return value instanceof String ? "'" + value + "'" : String.valueOf(value);
  }
}
