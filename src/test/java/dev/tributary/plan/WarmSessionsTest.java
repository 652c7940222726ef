package dev.tributary.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.port.FlinkSql;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Warm validation sessions against a gateway faked at the port: what is opened, declared, reused
 * and closed.
 */
class WarmSessionsTest {

  final AtomicInteger opened = new AtomicInteger();
  final Set<String> live = new HashSet<>();
  final List<String> executed = new ArrayList<>();

  final FlinkSql gateway =
      (FlinkSql)
          Proxy.newProxyInstance(
              FlinkSql.class.getClassLoader(),
              new Class<?>[] {FlinkSql.class},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "openSession" -> {
                      String handle = "s" + opened.incrementAndGet();
                      live.add(handle);
                      yield new FlinkSql.Session(handle);
                    }
                    case "configure" -> {
                      executed.add(((FlinkSql.Session) args[0]).handle() + ": " + args[1]);
                      yield null;
                    }
                    case "closeSession" -> {
                      live.remove(((FlinkSql.Session) args[0]).handle());
                      yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                  });

  final WarmSessions sessions = new WarmSessions(gateway);

  static WarmSessions.Key key(String... declarations) {
    return new WarmSessions.Key("v", Map.of("catalog", "c"), List.of(declarations));
  }

  @Test
  void shouldDeclareOnceAndServeTheSameKeyFromOneSession() {
    String first = sessions.with(key("CREATE TABLE a"), FlinkSql.Session::handle);
    String second = sessions.with(key("CREATE TABLE a"), FlinkSql.Session::handle);

    assertThat(second).isEqualTo(first);
    assertThat(opened).hasValue(1);
    assertThat(executed).containsExactly(first + ": CREATE TABLE a");

    String other = sessions.with(key("CREATE TABLE b"), FlinkSql.Session::handle);
    assertThat(other).as("other declarations, another session").isNotEqualTo(first);
    assertThat(opened).hasValue(2);

    sessions.close();
    assertThat(live).as("closed with the planner").isEmpty();
  }

  @Test
  void shouldRunAFailureOfAServedSessionAgainInAFreshOneWhoseAnswerStands() {
    String warm = sessions.with(key("CREATE TABLE a"), FlinkSql.Session::handle);

    // The served session fails (as one the gateway lost would); a fresh one answers.
    String answer =
        sessions.with(
            key("CREATE TABLE a"),
            s -> {
              if (s.handle().equals(warm)) {
                throw new IllegalStateException("session " + warm + " does not exist");
              }
              return s.handle();
            });

    assertThat(answer).isNotEqualTo(warm);
    assertThat(live).as("the failed session and the fresh one are closed").isEmpty();

    // A failure in a fresh session is the answer: it is not run a third time.
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                sessions.with(
                    key("CREATE TABLE b"),
                    s -> {
                      runs.incrementAndGet();
                      throw new IllegalArgumentException("bad query");
                    }))
        .hasMessage("bad query");
    assertThat(runs).hasValue(1);
    assertThat(live).isEmpty();
  }

  @Test
  void shouldUseAFreshSessionWhenEveryWarmOneOfTheKeyIsServing() throws Exception {
    // Four validations of one key hold the four warm sessions a key may have; a fifth at the same
    // time gets a session of its own, closed after it.
    List<String> handles = new ArrayList<>();
    nest(5, handles);
    assertThat(handles).hasSize(5).doesNotHaveDuplicates();
    assertThat(live).as("the four warm sessions stay; the fresh one is closed").hasSize(4);
    assertThat(sessions.open()).isEqualTo(4);
  }

  private void nest(int depth, List<String> handles) {
    if (depth == 0) {
      return;
    }
    sessions.with(
        key("CREATE TABLE a"),
        s -> {
          handles.add(s.handle());
          nest(depth - 1, handles);
          return null;
        });
  }
}
