package dev.cohort.devstack.pg;

import dev.cohort.devstack.TempDirs;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * zonky's PostgreSQL binaries (the Maven Central artifact the build already has) unpacked once per machine, so that
 * {@link PgCluster} can run {@code initdb} and {@code pg_ctl} on them itself: zonky's own server offers one start and
 * one stop, not a crash and a restart on the same data directory, and initdb there trusts every local connection.
 */
final class ZonkyBinaries {

    private ZonkyBinaries() {
    }

    /**
     * The {@code bin} directory of the unpacked binaries, under {@code java.io.tmpdir/embedded-pg/} (beside zonky's own
     * cache) in a directory named after the archive's digest, so another binaries version unpacks anew.
     */
    static Path bin() {
        try {
            byte[] archive;
            try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", System.getProperty("os.arch"))) {
                archive = in.readAllBytes();
            }
            Path root = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg"));
            Path dir = root.resolve("cohort-" + digest(archive));
            Path bin = dir.resolve("bin");
            if (Files.isExecutable(bin.resolve("pg_ctl"))) {
                return bin;
            }
            // unpacked beside and renamed into place: a JVM never sees a half-unpacked directory
            Path staging = Files.createTempDirectory(root, "cohort-unpacking-");
            try {
                unpack(archive, staging);
                // readable by every user of the machine, like zonky's own cache (a temp directory starts as rwx------)
                Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                if (!Files.isExecutable(bin.resolve("pg_ctl"))) {
                    throw e;
                }
                // another JVM renamed its identical copy into place first
            } finally {
                TempDirs.deleteTree(staging);
            }
            return bin;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack zonky's PostgreSQL binaries", e);
        }
    }

    private static void unpack(byte[] txz, Path into) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new ByteArrayInputStream(txz)))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                Path target = into.resolve(e.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("archive entry outside its root: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else if (e.isSymbolicLink()) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Path.of(e.getLinkName()));
                } else if (e.isFile()) {
                    Files.createDirectories(target.getParent());
                    Files.copy(tar, target);
                    Files.setPosixFilePermissions(target, permissions(e.getMode()));
                } else {
                    throw new IOException("unexpected archive entry " + e.getName());
                }
            }
        }
    }

    /** The owner/group/other rwx bits of a tar mode. */
    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ … OTHERS_EXECUTE, high bit first
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << (bits.length - 1 - i))) != 0) {
                out.add(bits[i]);
            }
        }
        return out;
    }

    private static String digest(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
