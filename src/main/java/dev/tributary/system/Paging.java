package dev.tributary.system;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * One pagination for every list (Google AIP-158): {@code limit} items at most, and an opaque {@code
 * nextPageToken} that the next request sends as {@code pageToken}; none on the last page. A token
 * names the item a page ended at by its key in the list's order (a name, an id), not by a count: an
 * item added or removed meanwhile neither repeats nor skips the items around it. A token is bound
 * to its list (the path and the filters): one from another list, or edited, is a 400.
 *
 * <p>Written here rather than taken from Spring Data's {@code Pageable}: that pages by offset,
 * which repeats and skips under concurrent inserts, and its tokens would be page numbers.
 */
public final class Paging {

  /** Items on a page when {@code limit} is not given. */
  public static final int DEFAULT_LIMIT = 100;

  /** The most items a page holds. */
  public static final int MAX_LIMIT = 1000;

  private static final Base64.Encoder ENCODE = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODE = Base64.getUrlDecoder();

  private Paging() {}

  /** One page of a list. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(description = "One page of a list; nextPageToken is absent on the last page")
  public record Page<T>(
      List<T> items,
      @Schema(description = "Send as pageToken for the next page; absent on the last page")
          String nextPageToken) {}

  /**
   * The page size asked for: {@value #DEFAULT_LIMIT} when null; outside 1..{@value #MAX_LIMIT} a
   * 400.
   */
  public static int limit(Integer limit) {
    if (limit == null) {
      return DEFAULT_LIMIT;
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "limit must be between 1 and " + MAX_LIMIT + ", not " + limit,
          Map.of("parameter", "limit"));
    }
    return limit;
  }

  /**
   * The key the previous page ended at, or null without a token. {@code list} names the list and
   * its filters; a token made for another list, or not made by this service, is a 400.
   */
  public static String after(String list, String pageToken) {
    if (pageToken == null || pageToken.isEmpty()) {
      return null;
    }
    String decoded;
    try {
      decoded = new String(DECODE.decode(pageToken), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw badToken();
    }
    int cut = decoded.indexOf('\n');
    if (cut < 0 || !decoded.substring(0, cut).equals(list)) {
      throw badToken();
    }
    return decoded.substring(cut + 1);
  }

  /** The token of a page that ended at {@code key}. */
  public static String token(String list, String key) {
    return ENCODE.encodeToString((list + "\n" + key).getBytes(StandardCharsets.UTF_8));
  }

  private static ApiException badToken() {
    return new ApiException(
        ErrorCode.VALIDATION_FAILED,
        "pageToken is not one this list gave: send the nextPageToken of its previous page, with"
            + " the same filters",
        Map.of("parameter", "pageToken"));
  }

  /**
   * A page of a list held in memory: the items ordered by {@code key} under {@code order} (names
   * ascending, ids descending, ...), those after the token's key, at most {@code limit}.
   */
  public static <T> Page<T> page(
      String list,
      List<T> items,
      Function<T, String> key,
      Comparator<String> order,
      Integer limit,
      String pageToken) {
    int size = limit(limit);
    String after = after(list, pageToken);
    List<T> sorted = new ArrayList<>(items);
    sorted.sort(Comparator.comparing(key, order));
    List<T> page = new ArrayList<>();
    boolean more = false;
    for (T item : sorted) {
      if (after != null && order.compare(key.apply(item), after) <= 0) {
        continue;
      }
      if (page.size() == size) {
        more = true;
        break;
      }
      page.add(item);
    }
    String next = more ? token(list, key.apply(page.get(page.size() - 1))) : null;
    return new Page<>(List.copyOf(page), next);
  }

  /**
   * A key that orders by time, then by a unique id: items created in the same instant keep one
   * order. The time is epoch nanoseconds, zero-padded, so that text order is time order.
   */
  public static String instantKey(Instant at, String id) {
    long nanos = at == null ? 0 : at.getEpochSecond() * 1_000_000_000L + at.getNano();
    return String.format(Locale.ROOT, "%020d/%s", nanos, id);
  }

  /** Names in ascending order. */
  public static final Comparator<String> BY_NAME = Comparator.naturalOrder();

  /** Numeric ids (as text) in ascending order. */
  public static final Comparator<String> BY_NUMBER = Comparator.comparingLong(Paging::number);

  /** Numeric ids (as text) newest first. */
  public static final Comparator<String> BY_NUMBER_DESCENDING = BY_NUMBER.reversed();

  private static long number(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw badToken();
    }
  }

  /**
   * A page read from the database by key (SQL {@code WHERE key < ? ORDER BY key DESC LIMIT n+1}):
   * {@code fetched} holds up to {@code limit + 1} items; the extra one only says there is more.
   */
  public static <T> Page<T> fetched(
      String list, List<T> fetched, int limit, Function<T, String> key) {
    if (fetched.size() <= limit) {
      return new Page<>(List.copyOf(fetched), null);
    }
    List<T> page = List.copyOf(fetched.subList(0, limit));
    return new Page<>(page, token(list, key.apply(page.get(limit - 1))));
  }

  /** The token's key as a number, for a database read; null without a token. */
  public static Long afterNumber(String list, String pageToken) {
    String after = after(list, pageToken);
    return after == null ? null : number(after);
  }
}
