package dev.tributary.catalog;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.time.Instant;

/** A database inside a catalog. */
@Entity
@Table(name = "catalog_database")
public class CatalogDatabase {

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @ManyToOne(fetch = FetchType.EAGER, optional = false)
  @JoinColumn(name = "catalog_id")
  private Catalog catalog;

  @Column(nullable = false)
  private String name;

  @Column(name = "created_at", nullable = false)
  private Instant createdAt;

  protected CatalogDatabase() {}

  public CatalogDatabase(Catalog catalog, String name) {
    this.catalog = catalog;
    this.name = name;
    this.createdAt = Instant.now();
  }

  public Long getId() {
    return id;
  }

  public Catalog getCatalog() {
    return catalog;
  }

  public String getName() {
    return name;
  }

  /** {@code catalog.database}, as written in SQL. */
  public String qualifiedName() {
    return catalog.getName() + "." + name;
  }
}
