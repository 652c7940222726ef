package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.system.Paging.Page;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class PagingTest {

  private static Page<String> names(List<String> all, Integer limit, String token) {
    return Paging.page("names", all, Function.identity(), Paging.BY_NAME, limit, token);
  }

  @Test
  void shouldNeitherRepeatNorSkipAnItemWhenOthersAreAddedAndRemovedBetweenPages() {
    List<String> all = new ArrayList<>(List.of("b", "d", "f", "h"));
    Page<String> first = names(all, 2, null);
    assertThat(first.items()).containsExactly("b", "d");
    assertThat(first.nextPageToken()).isNotNull();

    all.add("a"); // before the page's end: not seen on this pass, and nothing shifts
    all.add("e"); // after it: seen
    all.remove("d"); // the item the token names may go
    Page<String> second = names(all, 2, first.nextPageToken());
    assertThat(second.items()).containsExactly("e", "f");
    Page<String> last = names(all, 2, second.nextPageToken());
    assertThat(last.items()).containsExactly("h");
    assertThat(last.nextPageToken()).as("none on the last page").isNull();
  }

  @Test
  void shouldOrderNumbersAsNumbersBothWays() {
    List<Long> ids = List.of(9L, 10L, 100L, 2L);
    Page<Long> newest =
        Paging.page("ids", ids, String::valueOf, Paging.BY_NUMBER_DESCENDING, 3, null);
    assertThat(newest.items()).containsExactly(100L, 10L, 9L);
    assertThat(
            Paging.page(
                    "ids",
                    ids,
                    String::valueOf,
                    Paging.BY_NUMBER_DESCENDING,
                    3,
                    newest.nextPageToken())
                .items())
        .containsExactly(2L);
  }

  @Test
  void shouldRefuseATokenOfAnotherListOrNotMadeHereAndALimitOutOfRange() {
    String token = names(List.of("a", "b"), 1, null).nextPageToken();
    assertThatThrownBy(
            () -> Paging.page("other", List.of("a"), Function.identity(), Paging.BY_NAME, 1, token))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("pageToken");
    assertThatThrownBy(() -> names(List.of("a"), 1, "not a token!"))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("pageToken");
    assertThatThrownBy(() -> names(List.of("a"), 0, null)).hasMessageContaining("limit");
    assertThatThrownBy(() -> names(List.of("a"), Paging.MAX_LIMIT + 1, null))
        .hasMessageContaining("limit");
    assertThat(names(List.of("a"), null, null).items()).containsExactly("a");
  }

  @Test
  void shouldPageAReadThatFetchedOneMoreThanTheLimit() {
    Page<Long> page = Paging.fetched("ev", List.of(1L, 2L, 3L), 2, String::valueOf);
    assertThat(page.items()).containsExactly(1L, 2L);
    assertThat(Paging.afterNumber("ev", page.nextPageToken())).isEqualTo(2L);
    assertThat(Paging.fetched("ev", List.of(1L, 2L), 2, String::valueOf).nextPageToken()).isNull();
  }
}
