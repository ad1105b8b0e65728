package dev.cohort.lead.tasks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SQL with {@code :name} parameters, so the long conditional statements of the board can reuse a value several
 * times without counting question marks. {@code ::type} casts are left alone.
 */
final class NamedSql {
    private static final Pattern PARAM = Pattern.compile("(?<!:):([a-zA-Z][a-zA-Z0-9]*)");

    private final String jdbc;
    private final List<String> names;

    private NamedSql(String jdbc, List<String> names) {
        this.jdbc = jdbc;
        this.names = List.copyOf(names);
    }

    static NamedSql of(String sql) {
        List<String> names = new ArrayList<>();
        Matcher m = PARAM.matcher(sql);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            names.add(m.group(1));
            m.appendReplacement(sb, "?");
        }
        m.appendTail(sb);
        return new NamedSql(sb.toString(), names);
    }

    /** Prepares the statement and binds every parameter from {@code values}; a missing name is a programming error. */
    PreparedStatement prepare(Connection c, Map<String, ?> values) throws SQLException {
        PreparedStatement ps = c.prepareStatement(jdbc);
        try {
            for (int i = 0; i < names.size(); i++) {
                String n = names.get(i);
                if (!values.containsKey(n)) {
                    throw new IllegalArgumentException("no value for :" + n);
                }
                Object v = values.get(n);
                if (v instanceof long[] arr) {
                    Long[] boxed = new Long[arr.length];
                    for (int k = 0; k < arr.length; k++) {
                        boxed[k] = arr[k];
                    }
                    ps.setArray(i + 1, c.createArrayOf("bigint", boxed));
                } else if (v instanceof String[] arr) {
                    ps.setArray(i + 1, c.createArrayOf("text", arr));
                } else {
                    ps.setObject(i + 1, v);
                }
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }
}
