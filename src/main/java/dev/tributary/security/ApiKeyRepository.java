package dev.tributary.security;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

interface ApiKeyRepository extends JpaRepository<ApiKey, UUID> {

  Optional<ApiKey> findByKeyHash(String keyHash);

  List<ApiKey> findAllByOrderByCreatedAtAsc();

  boolean existsByNameAndRevokedAtIsNull(String name);
}
