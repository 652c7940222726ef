package dev.tributary.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/** A JFR recording (the JDK's "profile" settings) of a benchmark's rounds, kept under target/. */
public final class Profile implements AutoCloseable {

  private final Recording recording;

  private Profile(Recording recording) {
    this.recording = recording;
  }

  /** Starts recording now. */
  public static Profile start() throws IOException, ParseException {
    Recording recording = new Recording(Configuration.getConfiguration("profile"));
    recording.start();
    return new Profile(recording);
  }

  /** Stops and writes {@code target/bench/<name>.jfr}; returns its path. */
  public Path keep(String name) throws IOException {
    recording.stop();
    Path jfr = Path.of("target", "bench", name + ".jfr");
    Files.createDirectories(jfr.getParent());
    recording.dump(jfr);
    return jfr;
  }

  @Override
  public void close() {
    recording.close();
  }
}
