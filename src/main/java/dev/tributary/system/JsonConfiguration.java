package dev.tributary.system;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

/**
 * Request bodies say what they mean: a number or a boolean where a string is expected is a 400
 * naming the field, not the string {@code "1e400"} (Boot's {@code allow-coercion-of-scalars} covers
 * only the other direction).
 */
@Configuration(proxyBeanMethods = false)
class JsonConfiguration {

  @Bean
  JsonMapperBuilderCustomizer noScalarsAsText() {
    return builder ->
        builder.withCoercionConfig(
            LogicalType.Textual,
            c ->
                c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
  }
}
