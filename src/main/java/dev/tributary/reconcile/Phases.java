package dev.tributary.reconcile;

import dev.tributary.table.Phase;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Which phase may follow which: the phase table of DESIGN.md, checked at every phase the reconciler
 * writes ({@link ReconcilePass#save}). The loop is level-triggered, so most phases may follow most
 * others (a drop, an invalid definition or a vanished job can come at any time); what the table
 * fixes is where a row's life starts and ends: PENDING only first, nothing after DELETING, and a
 * finished INSERT ONCE flow runs again only through CREATING.
 */
final class Phases {

  static final Map<Phase, Set<Phase>> MAY_FOLLOW = mayFollow();

  private Phases() {}

  static boolean allowed(Phase from, Phase to) {
    return MAY_FOLLOW.get(from).contains(to);
  }

  private static Map<Phase, Set<Phase>> mayFollow() {
    Map<Phase, Set<Phase>> next = new EnumMap<>(Phase.class);
    for (Phase from : Phase.values()) {
      next.put(from, EnumSet.complementOf(EnumSet.of(Phase.PENDING)));
    }
    next.put(Phase.PENDING, EnumSet.complementOf(EnumSet.of(Phase.SUCCEEDED)));
    next.put(Phase.DELETING, EnumSet.of(Phase.DELETING));
    next.put(
        Phase.SUCCEEDED,
        EnumSet.of(Phase.SUCCEEDED, Phase.CREATING, Phase.STOPPED, Phase.FAILED, Phase.DELETING));
    return next;
  }
}
