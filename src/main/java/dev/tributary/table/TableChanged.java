package dev.tributary.table;

import java.util.UUID;

/** A table's desired state changed; published inside the transaction that changed it. */
public record TableChanged(UUID tableId) {}
