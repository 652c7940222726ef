package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.local.S3Server;
import dev.tributary.system.TributaryProperties;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's view of checkpoint and savepoint storage against a real S3 API server (s3proxy, its
 * own process): what an evolution reads and what retention and DROP delete, through the AWS SDK, on
 * the store Flink writes to. The format jar goes there too.
 */
class StateStorageIT {

  static S3Server s3;
  static StateStorage storage;

  @BeforeAll
  static void start(@TempDir Path dir) throws Exception {
    s3 = S3Server.start(dir);
    storage =
        new StateStorage(
            new TributaryProperties.Flink.S3(
                s3.endpoint(), S3Server.ACCESS_KEY, S3Server.SECRET_KEY, S3Server.REGION, true));
  }

  @AfterAll
  static void stop() throws Exception {
    storage.close();
    s3.close();
  }

  static String at(String key) {
    return "s3://" + S3Server.BUCKET + "/" + key;
  }

  static void put(String key, String text) {
    storage.write(at(key), text.getBytes(StandardCharsets.UTF_8), "application/octet-stream");
  }

  @Test
  void shouldReadListPruneAndDeleteSavepointsInS3() throws Exception {
    assertThat(storage.reaches(at("savepoints/t1"))).isTrue();
    for (String sp : new String[] {"savepoint-a", "savepoint-b", "savepoint-c", "savepoint-d"}) {
      put("savepoints/t1/" + sp + "/_metadata", "meta of " + sp);
      put("savepoints/t1/" + sp + "/state-1", "state");
      Thread.sleep(1100); // S3 times are in seconds: each savepoint newer than the last
    }
    assertThat(storage.list(at("savepoints/t1")))
        .extracting(StateStorage.Entry::name)
        .containsExactly("savepoint-d", "savepoint-c", "savepoint-b", "savepoint-a");
    assertThat(storage.readMetadata(at("savepoints/t1/savepoint-b")))
        .hasValueSatisfying(
            b ->
                assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("meta of savepoint-b"));
    // s3a:// names the same objects, as Flink's Hadoop-based file systems write it.
    assertThat(storage.readMetadata("s3a://" + S3Server.BUCKET + "/savepoints/t1/savepoint-b"))
        .isPresent();

    // Keep the newest two and a protected old one: one savepoint goes, with all its files.
    assertThat(
            SavepointFiles.prune(
                storage, at("savepoints/t1"), 2, Set.of(at("savepoints/t1/savepoint-a/"))))
        .hasValue(1);
    assertThat(storage.list(at("savepoints/t1")))
        .extracting(StateStorage.Entry::name)
        .containsExactly("savepoint-d", "savepoint-c", "savepoint-a");
    assertThat(s3.data().resolve(S3Server.BUCKET).resolve("savepoints/t1/savepoint-b"))
        .satisfiesAnyOf(
            p -> assertThat(p).doesNotExist(), p -> assertThat(Files.list(p)).isEmpty());

    assertThat(SavepointFiles.deleteAll(storage, at("savepoints/t1"))).hasValue(1);
    assertThat(storage.list(at("savepoints/t1"))).isEmpty();
    assertThat(SavepointFiles.deleteAll(storage, at("savepoints/t1"))).hasValue(0);
  }

  @Test
  void shouldFindTheNewestCompleteCheckpointOfAJob() {
    put("checkpoints/job1/chk-3/_metadata", "3");
    put("checkpoints/job1/chk-12/_metadata", "12");
    put("checkpoints/job1/chk-13/state", "in progress: no _metadata yet");
    put("checkpoints/job1/shared/x", "shared state");
    RestFlinkJobs jobs = new RestFlinkJobs(null, storage);
    assertThat(jobs.newestCheckpoint(at("checkpoints/job1")))
        .hasValue(at("checkpoints/job1/chk-12"));
    assertThat(jobs.newestCheckpoint(at("checkpoints/none"))).isEmpty();
  }

  @Test
  void shouldUploadTheFormatJarOnceAndAgainWhenTheStoreLostIt() {
    SteppedClock clock = new SteppedClock(Instant.parse("2026-12-03T00:00:00Z"));
    FormatJar jar = new FormatJar(storage, at("lib"), clock);
    String location = jar.ensureUploaded();
    assertThat(location).matches("s3://tributary/lib/tributary-flink-format-[0-9a-f]{12}\\.jar");
    assertThat(storage.exists(location)).isTrue();
    assertThat(new FormatJar(storage, at("lib"), clock).location())
        .as("the same classes give the same name")
        .isEqualTo(location);

    storage.deleteTree(at("lib")); // the store lost it
    jar.ensureUploaded();
    assertThat(storage.exists(location)).as("checked at most once a minute").isFalse();
    clock.advance(Duration.ofSeconds(61));
    jar.ensureUploaded();
    assertThat(storage.exists(location)).isTrue();
  }

  @Test
  void shouldNotReachAStoreWithWrongKeys() {
    StateStorage wrong =
        new StateStorage(
            new TributaryProperties.Flink.S3(
                s3.endpoint(), "nobody", "wrong", S3Server.REGION, true));
    assertThat(wrong.reaches(at("savepoints"))).isFalse();
    assertThat(StateStorage.localOnly().reaches(at("savepoints"))).isFalse();
    assertThat(wrong.readMetadata(at("savepoints/x"))).isEmpty();
  }
}
