package dev.tributary.table;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.Map;

/**
 * Another request created a table of this name (or took its topic) between this request's read and
 * its insert. The whole script may run again: it then sees the winner's row, so that a CREATE OR
 * ALTER of the same definition is UNCHANGED and a plain CREATE is ALREADY_EXISTS.
 */
public final class NameTaken extends ApiException {

  NameTaken(String detail, Map<String, Object> properties) {
    super(ErrorCode.CONFLICT, detail, properties);
  }
}
