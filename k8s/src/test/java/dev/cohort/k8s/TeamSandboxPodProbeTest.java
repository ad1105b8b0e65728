package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.OptionalProgram;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model's command as the team sandbox pod would run it, on this machine: the user, group, environment, mounts and
 * capabilities come from the {@code SandboxTemplate} itself (read here, not restated), the root is an image-like
 * read-only tree (the system directories only, no host state), and the network is none, as the template's
 * NetworkPolicy {@code team-sandbox} allows no egress (checked offline by {@code SANDBOX_EGRESS_DENIED}). From inside,
 * probes must find no secret in any process's environment, no database or Kafka port that answers, no service account
 * token, no other team's files, no capability, and no write outside the workspace and {@code /tmp}. What only a
 * cluster shows (the image's own files, the runtime class, the kubelet's mounts) is in k8s/README.md.
 */
class TeamSandboxPodProbeTest {
    private static final List<String> SYSTEM_DIRS = List.of("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64");

    @Test
    void aCommandUnderThePodsUserEnvironmentAndMountsFindsNoSecretNoServiceAndNoOtherTeam(@TempDir Path dir)
            throws Exception {
        OptionalProgram.BWRAP.assume(unusable());
        JsonNode template = Manifest.YAML.readTree(
                Manifest.k8sDir().resolve("components/agent-sandbox/sandbox-template.yaml").toFile());
        JsonNode pod = template.at("/spec/podTemplate/spec");
        JsonNode container = pod.at("/containers/0");
        long uid = pod.at("/securityContext/runAsUser").asLong(-1);
        long gid = pod.at("/securityContext/runAsGroup").asLong(-1);
        assertThat(uid).as("the pod runs as a user of its own").isPositive();
        assertThat(pod.at("/automountServiceAccountToken").asBoolean(true)).isFalse();
        assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean(false)).isTrue();
        assertThat(container.at("/securityContext/capabilities/drop").toString()).contains("ALL");

        Path workspace = Files.createDirectories(dir.resolve("team-a"));
        Path other = Files.createDirectories(dir.resolve("team-b"));
        Files.writeString(other.resolve("plan.md"), "team b's plan");
        run(List.of("chown", "-R", uid + ":" + gid, workspace.toString())); // fsGroup: the volume is the pod's group's

        // no user namespace: the user is changed for real (setpriv, which also drops every capability, below)
        List<String> cmd = new ArrayList<>(List.of("bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net",
                "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
                "--proc", "/proc", "--dev", "/dev"));
        for (String d : SYSTEM_DIRS) {
            cmd.addAll(List.of("--ro-bind-try", d, d));
        }
        List<String> declared = new ArrayList<>();
        for (JsonNode e : container.path("env")) {
            assertThat(e.has("valueFrom")).as("env %s comes from the template, not a Secret", e).isFalse();
            declared.add(e.get("name").asText());
            cmd.addAll(List.of("--setenv", e.get("name").asText(), e.path("value").asText()));
        }
        // the image's own environment (ubi9 openjdk runtime): a PATH and a home
        cmd.addAll(List.of("--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp"));
        Path atWorkspace = workspace;
        for (JsonNode m : container.path("volumeMounts")) {
            String name = m.get("name").asText();
            String at = m.get("mountPath").asText();
            if (name.equals("workspace")) {
                // the volume, or the directory of it the mount names (subPath)
                Path source = m.hasNonNull("subPath") ? workspace.resolve(m.get("subPath").asText()) : workspace;
                Files.createDirectories(source);
                run(List.of("chown", uid + ":" + gid, source.toString()));
                if (at.equals("/workspace")) {
                    atWorkspace = source;
                }
                cmd.addAll(List.of("--bind", source.toString(), at));
            } else if (pod.at("/volumes").findValues("name").stream().anyMatch(n -> n.asText().equals(name))) {
                cmd.addAll(List.of("--perms", "1777", "--tmpfs", at)); // an emptyDir
            }
        }
        try (ServerSocket db = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
                ServerSocket kafka = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            cmd.addAll(List.of("--", "setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "/bin/bash", "-c",
                    probes(db.getLocalPort(), kafka.getLocalPort(), other, declared)));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(out).as(out)
                    .contains("uid=" + uid + " gid=" + gid)
                    .contains("capeff=0000000000000000")
                    .contains("secret-env=none")
                    .contains("db=unreachable").contains("kafka=unreachable")
                    .contains("token=absent")
                    .contains("other=absent")
                    .contains("workspace=writable").contains("tmp=writable")
                    .doesNotContain("wrote=");
            assertThat(atWorkspace.resolve("probe")).exists();
        }
    }

    /** The probes, run by bash as the pod's user; each prints one line. */
    private static String probes(int dbPort, int kafkaPort, Path other, List<String> declared) {
        // the template's own variables are literals in git (checked above: none from a Secret), not secrets
        String ownVariables = declared.isEmpty() ? "" : " | grep -vE '^(" + String.join("|", declared) + ")='";
        return String.join("\n",
                "echo \"uid=$(id -u) gid=$(id -g)\"",
                "while read -r k v _; do [ \"$k\" = CapEff: ] && echo \"capeff=$v\"; done < /proc/self/status",
                "s=$(for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\" 2>/dev/null; done"
                        + " | grep -iE '^[^=]*(PASSWORD|PASSWD|TOKEN|SECRET|JAAS|CREDENTIAL|KEY)[^=]*=|^(KAFKA|COHORT|PG|QUARKUS)_'"
                        + ownVariables + ")",
                "echo \"secret-env=${s:-none}\"",
                "(exec 3<>/dev/tcp/127.0.0.1/" + dbPort + ") 2>/dev/null && echo db=reachable || echo db=unreachable",
                "(exec 3<>/dev/tcp/127.0.0.1/" + kafkaPort + ") 2>/dev/null && echo kafka=reachable"
                        + " || echo kafka=unreachable",
                "[ -e /var/run/secrets/kubernetes.io ] && echo token=present || echo token=absent",
                "[ -e '" + other + "' ] || [ -e '" + other.getParent() + "' ] && echo other=visible || echo other=absent",
                "for d in / /usr /etc /var /home /opt; do touch \"$d/probe\" 2>/dev/null && echo \"wrote=$d\"; done",
                "touch /workspace/probe && echo workspace=writable",
                "touch /tmp/probe && echo tmp=writable");
    }

    /** Why bubblewrap cannot run this here (it is missing, or the test is not root and cannot change user). */
    private static Optional<String> unusable() throws IOException, InterruptedException {
        if (OptionalProgram.find("bwrap", System.getenv("PATH")).isEmpty()) {
            return Optional.of("bwrap is not on PATH");
        }
        if (!"0".equals(run(List.of("id", "-u")).strip())) {
            return Optional.of("taking the pod's user needs root here");
        }
        return Optional.empty();
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s: %s", cmd, out).isTrue();
        return out;
    }
}
