package dev.tributary.system;

/** The descriptions of the paging parameters, the same on every list. */
public final class PagingDocs {

  public static final String LIMIT = "Items on the page: 1 to 1000, 100 when not given";

  public static final String TOKEN =
      "The nextPageToken of the previous page; absent for the first page";

  private PagingDocs() {}
}
