package dev.cohort.k8s;

import java.math.BigInteger;
import java.net.InetAddress;
import java.util.regex.Pattern;

/** CIDR syntax and containment, for NetworkPolicy ipBlocks (IPv4 and IPv6). */
final class Cidr {
    private static final Pattern SHAPE = Pattern.compile("[0-9a-fA-F:.]+/\\d{1,3}");

    private Cidr() {
    }

    /** Whether {@code cidr} is an address with a prefix length that fits it. */
    static boolean valid(String cidr) {
        if (cidr == null || !SHAPE.matcher(cidr).matches()) {
            return false;
        }
        try {
            byte[] addr = InetAddress.getByName(cidr.substring(0, cidr.indexOf('/'))).getAddress();
            int bits = Integer.parseInt(cidr.substring(cidr.indexOf('/') + 1));
            return bits <= addr.length * 8;
        } catch (Exception e) {
            return false;
        }
    }

    /** Whether {@code inner} lies inside {@code outer} (both valid, same family). */
    static boolean contains(String outer, String inner) {
        try {
            byte[] o = InetAddress.getByName(outer.substring(0, outer.indexOf('/'))).getAddress();
            byte[] i = InetAddress.getByName(inner.substring(0, inner.indexOf('/'))).getAddress();
            int ob = Integer.parseInt(outer.substring(outer.indexOf('/') + 1));
            int ib = Integer.parseInt(inner.substring(inner.indexOf('/') + 1));
            if (o.length != i.length || ib < ob) {
                return false;
            }
            BigInteger mask = BigInteger.ONE.shiftLeft(o.length * 8).subtract(BigInteger.ONE)
                    .xor(BigInteger.ONE.shiftLeft(o.length * 8 - ob).subtract(BigInteger.ONE));
            return new BigInteger(1, o).and(mask).equals(new BigInteger(1, i).and(mask));
        } catch (Exception e) {
            return false;
        }
    }

    /** Whether the block is the whole address space of its family (0.0.0.0/0, ::/0): no allowlist at all. */
    static boolean isEverything(String cidr) {
        return cidr != null && cidr.endsWith("/0");
    }
}
