package dev.cohort.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: columns padded to their widest cell (each cell on one line, neutralised and cut at
 * {@link #MAX_CELL}), two spaces apart.
 */
final class Table {

    static final int MAX_CELL = 60;

    private Table() {
    }

    static List<String> render(List<String> headers, List<List<String>> rows) {
        return render(headers, rows, true);
    }

    /**
     * The table; with {@code cutLast} false the last column is shown whole ({@link TerminalText#line}, whitespace as
     * written): for a cell a person must read entirely, such as the call of an approval request.
     */
    static List<String> render(List<String> headers, List<List<String>> rows, boolean cutLast) {
        int n = headers.size();
        int[] w = new int[n];
        List<List<String>> cells = new ArrayList<>();
        cells.add(headers);
        for (List<String> r : rows) {
            List<String> c = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String v = i < r.size() && r.get(i) != null ? r.get(i) : "";
                c.add(i == n - 1 && !cutLast ? TerminalText.line(v) : EventFormatter.oneLine(v, MAX_CELL));
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
