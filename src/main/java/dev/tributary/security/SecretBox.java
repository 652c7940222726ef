package dev.tributary.security;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.stereotype.Component;

/**
 * Encrypts secret option values at rest with AES-GCM under {@code tributary.security.secret-key}. A
 * stored value is {@code enc:v1:} and base64 of a 12-byte nonce and the ciphertext with its tag.
 */
@Component
public class SecretBox {

  private static final String PREFIX = "enc:v1:";
  private final SecretKey key;
  private final SecureRandom random = new SecureRandom();

  SecretBox(SecurityProperties properties) {
    this.key = key(properties.secretKey());
  }

  private static SecretKey key(String configured) {
    if (configured == null || configured.isBlank()) {
      return null;
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(configured.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("tributary.security.secret-key is not base64");
    }
    if (bytes.length != 16 && bytes.length != 24 && bytes.length != 32) {
      throw new IllegalStateException(
          "tributary.security.secret-key must be 16, 24 or 32 bytes (base64); it is "
              + bytes.length);
    }
    return new SecretKeySpec(bytes, "AES");
  }

  public static boolean sealed(String value) {
    return value != null && value.startsWith(PREFIX);
  }

  /** The value encrypted; a 400 naming the option when no key is configured. */
  public String seal(String option, String value) {
    if (key == null) {
      throw new ApiException(
          ErrorCode.UNSUPPORTED_OPTION,
          "Option '"
              + option
              + "' holds a secret, and this service has no key to encrypt it with: set"
              + " tributary.security.secret-key (TRIBUTARY_SECURITY_SECRET_KEY)");
    }
    try {
      byte[] nonce = new byte[12];
      random.nextBytes(nonce);
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
      byte[] sealed = cipher.doFinal(value.getBytes(StandardCharsets.UTF_8));
      return PREFIX
          + Base64.getEncoder()
              .encodeToString(
                  ByteBuffer.allocate(12 + sealed.length).put(nonce).put(sealed).array());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Encryption failed", e);
    }
  }

  /** The plain value of a sealed one. */
  public String open(String sealed) {
    if (!sealed(sealed)) {
      return sealed;
    }
    if (key == null) {
      throw new IllegalStateException(
          "A stored secret cannot be decrypted: tributary.security.secret-key is not set");
    }
    try {
      byte[] bytes = Base64.getDecoder().decode(sealed.substring(PREFIX.length()));
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, bytes, 0, 12));
      return new String(cipher.doFinal(bytes, 12, bytes.length - 12), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(
          "A stored secret does not decrypt with tributary.security.secret-key (was the key"
              + " changed?)");
    }
  }
}
