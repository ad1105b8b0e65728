package dev.cohort.core.shell;

import static dev.cohort.core.shell.ReadOnlyCommands.shift;

import dev.cohort.core.shell.ReadOnlyCommands.Grammar;
import java.util.List;
import java.util.Set;

/**
 * The git command lines that only read: an allowlist of global options, subcommands and, per subcommand, options.
 * Not read-only, among others: {@code -c}/{@code --config-env} (a setting can name a program: core.pager,
 * diff.external, core.fsmonitor…), {@code --exec-path}, {@code --git-dir}/{@code --work-tree}, {@code --output}
 * (writes), {@code --ext-diff}/{@code --textconv}/{@code --filters} (run configured programs on request),
 * {@code grep -O}/{@code --open-files-in-pager} (runs a pager), {@code --help} (runs man or a browser), and every form
 * of {@code branch}, {@code tag}, {@code remote}, {@code config}, {@code reflog}, {@code stash}, {@code worktree} that
 * changes something. {@code git diff}/{@code log -p}/{@code show} stay read-only although git applies the diff drivers
 * and textconv filters of the user's configuration by default: see {@link ReadOnlyCommands}.
 */
final class GitReads {

    /** Global options that change nothing: {@code -C dir} (below) also reads the repository found there. */
    private static final Set<String> GLOBAL_FLAGS = Set.of("--no-pager", "-P", "--no-replace-objects",
            "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
            "--no-optional-locks", "--no-lazy-fetch", "--no-advice");

    /** Subcommands all of whose options only select or format what is printed. */
    private static final Set<String> ANY_OPTIONS = Set.of("rev-parse", "ls-files", "ls-tree", "describe",
            "merge-base", "show-ref", "for-each-ref", "name-rev", "count-objects", "check-ignore", "check-attr",
            "cherry", "version");

    /** The options of the log and diff family that select commits, paths and how they are printed. */
    static final Grammar LOG = Grammar.of("pusmczRabwWrtiEFPgD0123456789", "nUSGLOlI", "MCBX",
            "--oneline --graph --stat[=] --numstat --shortstat --summary --name-only --name-status --patch --no-patch"
                    + " --raw --patch-with-raw --patch-with-stat --compact-summary --cached --staged --merge-base"
                    + " --no-index --all --branches[=] --tags[=] --remotes[=] --glob= --exclude= --first-parent"
                    + " --merges --no-merges --reverse --topo-order --date-order --author-date-order --decorate[=]"
                    + " --no-decorate --decorate-refs= --decorate-refs-exclude= --clear-decorations --abbrev[=]"
                    + " --no-abbrev --abbrev-commit --no-abbrev-commit --full-index --binary --color[=] --no-color"
                    + " --color-moved[=] --no-color-moved --color-moved-ws= --no-color-moved-ws --color-words[=]"
                    + " --word-diff[=] --word-diff-regex= --ignore-space-change --ignore-all-space"
                    + " --ignore-space-at-eol --ignore-blank-lines --ignore-cr-at-eol --ignore-matching-lines="
                    + " --minimal --patience --histogram --anchored= --diff-algorithm= --indent-heuristic"
                    + " --no-indent-heuristic --unified= --inter-hunk-context= --function-context --exit-code"
                    + " --quiet --check --follow --no-renames --renames --find-renames[=] --find-copies[=]"
                    + " --find-copies-harder --break-rewrites[=] --irreversible-delete --rename-empty"
                    + " --no-rename-empty --relative[=] --no-relative --text --src-prefix= --dst-prefix= --no-prefix"
                    + " --default-prefix --line-prefix= --no-ext-diff --no-textconv --stat-width= --stat-name-width="
                    + " --stat-count= --stat-graph-width= --dirstat[=] --cumulative --dirstat-by-file[=]"
                    + " --diff-filter= --pickaxe-all --pickaxe-regex --skip-to= --rotate-to= --ignore-submodules[=]"
                    + " --submodule[=] --ws-error-highlight= --full-diff --log-size --left-right --left-only"
                    + " --right-only --cherry --cherry-pick --cherry-mark --boundary --simplify-by-decoration"
                    + " --simplify-merges --ancestry-path[=] --full-history --dense --sparse --show-pulls"
                    + " --no-walk[=] --do-walk --since= --until= --after= --before= --max-age= --min-age= --author="
                    + " --committer= --grep= --grep-reflog= --invert-grep --all-match --regexp-ignore-case"
                    + " --basic-regexp --extended-regexp --fixed-strings --perl-regexp --max-count= --skip="
                    + " --max-parents= --min-parents= --no-max-parents --no-min-parents --walk-reflogs --date="
                    + " --relative-date --format= --pretty[=] --encoding= --expand-tabs[=] --no-expand-tabs"
                    + " --notes[=] --no-notes --show-notes[=] --show-notes-by-default --standard-notes"
                    + " --no-standard-notes --parents --children --mailmap --use-mailmap --no-mailmap"
                    + " --no-use-mailmap --source --show-linear-break[=] --diff-merges= --no-diff-merges"
                    + " --combined-all-paths --cc --dd --reflog --single-worktree --ignore-missing --stdin"
                    + " --alternate-refs --exclude-hidden= --in-commit-order --count --objects --objects-edge"
                    + " --no-object-names --object-names --timestamp --ita-invisible-in-index"
                    + " --ita-visible-in-index --output-indicator-new= --output-indicator-old="
                    + " --output-indicator-context= --base --ours --theirs");
    /** shortlog: the log options, with -n/-s/-e/-c as flags (numbered, summary, email, committer) and -w[…]. */
    private static final Grammar SHORTLOG = LOG.without("nsecw").with("nsec", "", "w",
            "--numbered --summary --email --committer --group=");
    private static final Grammar STATUS = Grammar.of("sbvz", "", "u", "--short --branch --porcelain[=] --long"
            + " --verbose --untracked-files[=] --ignored[=] --ignore-submodules[=] --null --column[=] --no-column"
            + " --ahead-behind --no-ahead-behind --renames --no-renames --find-renames[=] --show-stash");
    // not -O/--open-files-in-pager (runs the pager), --textconv
    private static final Grammar GREP = Grammar.of("nilvwcLhHEFGPozqaIWpr0123456789", "efABCm", "",
            "--cached --untracked --no-index --index --exclude-standard --no-exclude-standard --recurse-submodules"
                    + " --no-recurse-submodules --text --ignore-case --word-regexp --invert-match --full-name"
                    + " --extended-regexp --basic-regexp --fixed-strings --perl-regexp --line-number --column"
                    + " --files-with-matches --name-only --files-without-match --null --only-matching --count"
                    + " --color[=] --no-color --break --heading --show-function --function-context --and --or --not"
                    + " --all-match --quiet --max-depth= --threads= --context= --after-context= --before-context="
                    + " --max-count= --no-textconv");
    private static final Grammar BLAME = Grammar.of("bclLtfnsepwM0123456789", "LS", "MC", "--root --show-stats"
            + " --porcelain --line-porcelain --incremental --contents= --date= --show-name --show-number"
            + " --show-email --abbrev= --first-parent --reverse --since= --ignore-rev= --ignore-revs-file="
            + " --color-lines --color-by-age --minimal --progress --no-progress --score-debug --encoding="
            + " --no-textconv");
    // not --textconv / --filters (run configured programs)
    private static final Grammar CAT_FILE = Grammar.of("tsepZ", "", "", "--batch[=] --batch-check[=]"
            + " --batch-command[=] --batch-all-objects --buffer --unordered --follow-symlinks --allow-unknown-type"
            + " --use-mailmap --mailmap --no-mailmap");
    /** branch / tag list forms: the filters that imply a list are valued. */
    private static final Grammar BRANCH = Grammar.of("arvli", "", "", "--list --all --remotes --verbose"
            + " --show-current --no-color --color[=] --contains= --no-contains= --merged= --no-merged= --points-at="
            + " --sort= --format= --column[=] --no-column --ignore-case --abbrev= --no-abbrev --omit-empty");
    private static final Grammar TAG = Grammar.of("li", "", "n", "--list --sort= --format= --column[=] --no-column"
            + " --ignore-case --color[=] --contains= --no-contains= --merged= --no-merged= --points-at= --omit-empty");
    private static final Grammar CONFIG = Grammar.of("lz", "f", "", "--get --get-all --get-regexp --get-urlmatch"
            + " --get-color --get-colorbool --list --global --system --local --worktree --file= --blob= --show-origin"
            + " --show-scope --show-names --name-only --null --type= --bool --int --bool-or-int --path --expiry-date"
            + " --default= --includes --no-includes --fixed-value --all --regexp --value= --url=");
    private static final Set<String> CONFIG_READS = Set.of("--get", "--get-all", "--get-regexp", "--get-urlmatch",
            "--get-color", "--get-colorbool", "--list", "-l");
    private static final Grammar REMOTE_GET_URL = Grammar.of("", "", "", "--push --all");
    private static final Grammar REMOTE_SHOW = Grammar.of("n", "", "", "");
    private static final Grammar WORKTREE_LIST = Grammar.of("vz", "", "", "--porcelain --verbose --expire=");

    private GitReads() {
    }

    /** {@code true} when {@code git args} only reads. */
    static boolean readOnly(List<String> args, Set<Integer> expanded) {
        if (args.contains("--help")) {
            return false; // runs man, or a browser
        }
        int k = 0;
        while (k < args.size() && args.get(k).startsWith("-")) {
            String a = args.get(k);
            if (expanded.contains(k)) {
                return false;
            }
            if (a.equals("-C") && k + 1 < args.size() && !expanded.contains(k + 1)) {
                k += 2;
            } else if (GLOBAL_FLAGS.contains(a)) {
                k++;
            } else {
                return a.equals("--version") && k == args.size() - 1;
            }
        }
        if (k >= args.size() || expanded.contains(k)) {
            return false;
        }
        String sub = args.get(k);
        List<String> rest = args.subList(k + 1, args.size());
        Set<Integer> restExpanded = shift(expanded, k + 1);
        if (ANY_OPTIONS.contains(sub)) {
            return true;
        }
        return switch (sub) {
            case "status" -> STATUS.parse(rest, restExpanded) != null;
            case "log", "show", "diff", "whatchanged", "diff-tree", "diff-index", "diff-files", "rev-list" ->
                    LOG.parse(rest, restExpanded) != null;
            case "shortlog" -> SHORTLOG.parse(rest, restExpanded) != null;
            case "grep" -> GREP.parse(rest, restExpanded) != null;
            case "blame", "annotate" -> BLAME.parse(rest, restExpanded) != null;
            case "cat-file" -> CAT_FILE.parse(rest, restExpanded) != null;
            case "branch" -> listing(BRANCH.parse(rest, restExpanded), "--contains", "--no-contains", "--merged",
                    "--no-merged", "--points-at");
            case "tag" -> listing(TAG.parse(rest, restExpanded));
            case "config" -> config(rest, restExpanded);
            case "remote" -> remote(rest, restExpanded);
            case "reflog" -> rest.isEmpty() || rest.get(0).startsWith("-") && LOG.parse(rest, restExpanded) != null
                    || rest.get(0).equals("show") && LOG.parse(rest.subList(1, rest.size()),
                            shift(restExpanded, 1)) != null
                    || rest.get(0).equals("exists") && rest.size() == 2 && restExpanded.isEmpty();
            case "stash" -> !rest.isEmpty() && (rest.get(0).equals("list") || rest.get(0).equals("show"))
                    && LOG.parse(rest.subList(1, rest.size()), shift(restExpanded, 1)) != null;
            case "worktree" -> !rest.isEmpty() && rest.get(0).equals("list")
                    && noOperands(WORKTREE_LIST.parse(rest.subList(1, rest.size()), shift(restExpanded, 1)));
            default -> false;
        };
    }

    /** branch / tag: no operand (a name would be created), unless {@code -l}/{@code --list} or a filter lists. */
    private static boolean listing(Grammar.Parsed p, String... listingFilters) {
        if (p == null) {
            return false;
        }
        return p.operands().isEmpty() || p.has("-l", "--list") || p.has(listingFilters);
    }

    /** config: a read action ({@code --get…}, {@code --list}, or the {@code get}/{@code list} subcommands). */
    private static boolean config(List<String> rest, Set<Integer> expanded) {
        Grammar.Parsed p = CONFIG.parse(rest, expanded);
        if (p == null) {
            return false;
        }
        if (p.has(CONFIG_READS.toArray(String[]::new))) {
            return true;
        }
        return !p.operands().isEmpty() && (p.operands().get(0).equals("get") || p.operands().get(0).equals("list"));
    }

    /** remote: list ({@code -v}), {@code show [-n] NAME…}, {@code get-url [--push] [--all] NAME}. */
    private static boolean remote(List<String> rest, Set<Integer> expanded) {
        int k = 0;
        while (k < rest.size() && (rest.get(k).equals("-v") || rest.get(k).equals("--verbose"))) {
            k++;
        }
        if (k == rest.size()) {
            return true;
        }
        List<String> args = rest.subList(k + 1, rest.size());
        Set<Integer> argsExpanded = shift(expanded, k + 1);
        return switch (rest.get(k)) {
            case "show" -> REMOTE_SHOW.parse(args, argsExpanded) != null;
            case "get-url" -> REMOTE_GET_URL.parse(args, argsExpanded) != null;
            default -> false;
        };
    }

    private static boolean noOperands(Grammar.Parsed p) {
        return p != null && p.operands().isEmpty();
    }
}
