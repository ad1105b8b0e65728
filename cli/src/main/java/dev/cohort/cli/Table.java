package dev.cohort.cli;

import java.util.ArrayList;
import java.util.List;

/** A plain text table: columns padded to their widest cell (each cell cut at {@link #MAX_CELL}), two spaces apart. */
final class Table {

    static final int MAX_CELL = 60;

    private Table() {
    }

    static List<String> render(List<String> headers, List<List<String>> rows) {
        int n = headers.size();
        int[] w = new int[n];
        List<List<String>> cells = new ArrayList<>();
        cells.add(headers);
        for (List<String> r : rows) {
            List<String> c = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String v = i < r.size() && r.get(i) != null ? r.get(i) : "";
                c.add(EventFormatter.oneLine(v, MAX_CELL));
            }
            cells.add(c);
        }
        for (List<String> r : cells) {
            for (int i = 0; i < n; i++) {
                w[i] = Math.max(w[i], r.get(i).length());
            }
        }
        List<String> out = new ArrayList<>();
        for (List<String> r : cells) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < n; i++) {
                b.append(i == n - 1 ? r.get(i) : String.format("%-" + w[i] + "s  ", r.get(i)));
            }
            out.add(b.toString().stripTrailing());
        }
        return out;
    }
}
