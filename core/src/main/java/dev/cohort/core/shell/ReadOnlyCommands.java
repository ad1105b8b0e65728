package dev.cohort.core.shell;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The allowlist behind the {@code read-only} rule: the commands, and for each the options and forms, that cannot run
 * a program, write a file or change any state. Anything not listed (an unknown command, an unknown or abbreviated
 * option, a word whose text the shell computes where an option could hide) is not read-only.
 *
 * <p>Programs named by the user's own configuration (a git diff driver or textconv filter set in git config,
 * {@code LESSOPEN}, a ripgrep config file) are part of the tools the user installed, not of the command line: plan
 * mode cannot change that configuration (config writes, {@code git -c}, {@code --config-env} and such variables are
 * not read-only), so a read that uses it is still a read. Options that ask for such a program explicitly
 * ({@code --ext-diff}, {@code --textconv}, {@code --filters}) are not on the list: a read does not need them.
 */
final class ReadOnlyCommands {

    /**
     * Commands none of whose options or operands can run a program or write: every argument is data (a file to
     * read, a pattern, a format). They also read safely arguments they get from their input ({@code xargs grep}).
     */
    private static final Set<String> ANY_ARGUMENTS = Set.of("ls", "cat", "head", "tail", "grep", "egrep", "fgrep",
            "wc", "pwd", "echo", "stat", "which", "type", "du", "df", "diff", "cut", "tr", "whoami", "uname", "true",
            "false", "basename", "dirname", "realpath", "readlink", "jq", "nl", "cmp", "comm", "md5sum", "sha1sum",
            "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "printenv", "id", "column", "cd",
            "pushd", "popd", "od", "hexdump", "paste", "fold", "rev", "tac", "seq", "sleep", "command");

    /** Variables a command may be given ({@code LC_ALL=C sort}) whatever their value: locale, time zone, colours. */
    private static final Set<String> SAFE_VARIABLES = Set.of("LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "TERM",
            "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "GREP_COLOR", "GREP_COLORS", "LS_COLORS",
            "POSIXLY_CORRECT", "TIME_STYLE", "BLOCK_SIZE", "QUOTING_STYLE", "TABSIZE");
    /** Lower-case names zsh ties to its search paths: setting one sets {@code PATH} and friends. */
    private static final Set<String> TIED_LOWER_CASE = Set.of("path", "cdpath", "fpath", "manpath", "module_path");
    private static final Pattern LOCALE_VARIABLE = Pattern.compile("LC_[A-Z]+");
    private static final Pattern LOWER_CASE = Pattern.compile(".*[a-z].*");

    /** {@code ./cat}, {@code ~/bin/grep}: a program of that name elsewhere than the system's is not the one listed. */
    private static final Pattern SYSTEM_PROGRAM = Pattern.compile("(/usr)?(/local)?/s?bin/[a-z0-9\\[.-]+");

    /** The wrappers that only run their command ({@code env}, {@code timeout 5} …), with their harmless options. */
    private static final Map<String, Grammar> WRAPPERS = Map.of(
            "env", Grammar.of("i0v", "uC", "", "--ignore-environment --null --debug --unset= --chdir="),
            "time", Grammar.of("pvq", "f", "", "--portability --verbose --quiet --format="),
            "timeout", Grammar.of("v", "sk", "", "--foreground --preserve-status --verbose --signal= --kill-after="),
            "nice", Grammar.of("0123456789", "n", "", "--adjustment="),
            "stdbuf", Grammar.of("", "ioe", "", "--input= --output= --error="),
            "command", Grammar.of("p", "", "", ""),
            "builtin", Grammar.of("", "", "", ""),
            "exec", Grammar.of("cl", "a", "", ""),
            // -I/-i replace, -E/-e end of input, -L/-l lines, -P processes: none runs or writes anything
            "xargs", Grammar.of("0rtxop", "danLsPEI", "eil", "--null --no-run-if-empty --verbose --exit --open-tty"
                    + " --interactive --delimiter= --arg-file= --max-args= --max-lines[=] --max-chars= --max-procs="
                    + " --eof[=] --replace[=]"));

    // sort: not -o/--output (writes), -T/--temporary-directory (writes there), --compress-program (runs it)
    private static final Grammar SORT = Grammar.of("bdfgiMhnRrVcCszum", "ktS", "", "--ignore-leading-blanks"
            + " --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort"
            + " --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --check[=] --debug --merge"
            + " --stable --unique --zero-terminated --sort= --key= --field-separator= --buffer-size= --parallel="
            + " --batch-size= --files0-from= --random-source=");
    // uniq [INPUT [OUTPUT]]: a second operand is written
    private static final Grammar UNIQ = Grammar.of("cdDuiz", "fsw", "", "--count --repeated --all-repeated[=]"
            + " --unique --ignore-case --zero-terminated --skip-fields= --skip-chars= --check-chars= --group[=]");
    // tree: not -o (writes), -R (writes 00Tree.html in every directory); a value is always the next word
    private static final Grammar TREE = Grammar.separateValues("adlfxpugshDFqNQvtcUrCnASJXi", "LPIHT", "--gitignore"
            + " --gitfile= --ignore-case --matchdirs --metafirst --prune --info --infofile= --noreport --charset="
            + " --filelimit= --timefmt= --si --du --inodes --device --dirsfirst --filesfirst --sort= --fromfile"
            + " --fromtabfile --nolinks --hintro= --houtro= --version --help");
    // file: not -C/--compile (writes a .mgc), -p/--preserve-date (sets times), -z/-Z (runs decompressors)
    private static final Grammar FILE = Grammar.of("bcEhiIkLNnrsSv0", "efFmP", "", "--brief --checking-printout"
            + " --exclude= --exclude-quiet= --extension --files-from= --separator= --mime --mime-type"
            + " --mime-encoding --apple --keep-going --dereference --no-dereference --no-buffer --no-pad --print0"
            + " --raw --special-files --magic-file= --parameter= --version --help --debug");
    // date: not -s/--set; an operand must be a +FORMAT (date MMDDhhmm sets the clock)
    private static final Grammar DATE = Grammar.of("uR", "drf", "I", "--date= --file= --iso-8601[=] --rfc-3339="
            + " --rfc-email --rfc-2822 --reference= --utc --universal --debug --resolution");
    // hostname: not -F/--file or -b/--boot, and no operand (hostname NAME sets it)
    private static final Grammar HOSTNAME = Grammar.of("sfdiIaAyv", "", "", "--short --fqdn --long --domain"
            + " --ip-address --all-ip-addresses --alias --all-fqdns --verbose --yp --nis");
    // rg: not --pre (runs a preprocessor), --hostname-bin (runs it), -z/--search-zip (runs decompressors)
    private static final Grammar RG = Grammar.of("iIsSwxvnNlcFuUHhoqLa0Pp.b", "egtTABCmMrEfdj", "",
            "--files --type-list --hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot"
                    + " --no-ignore-global --no-ignore-exclude --no-ignore-files --ignore-file= --glob= --iglob="
                    + " --type= --type-not= --type-add= --context= --after-context= --before-context= --max-count="
                    + " --max-depth= --maxdepth= --max-filesize= --count --count-matches --files-with-matches"
                    + " --files-without-match --line-number --no-line-number --column --no-column --heading"
                    + " --no-heading --with-filename --no-filename --color= --colors= --json --vimgrep --sort="
                    + " --sortr= --stats --trim --fixed-strings --ignore-case --smart-case --case-sensitive"
                    + " --word-regexp --line-regexp --invert-match --only-matching --replace= --multiline"
                    + " --multiline-dotall --pcre2 --engine= --follow --text --binary --null --null-data --quiet"
                    + " --no-messages --debug --trace --no-config --passthru --pretty --byte-offset --crlf"
                    + " --encoding= --max-columns= --max-columns-preview --threads= --regexp= --file="
                    + " --one-file-system --unrestricted --version --help");
    // sed: not -i/--in-place (writes), -f/--file (a script we cannot see); the script itself is checked
    private static final Grammar SED = Grammar.of("nErszu", "el", "", "--quiet --silent --expression="
            + " --regexp-extended --separate --null-data --unbuffered --line-length= --posix --debug --sandbox"
            + " --binary");

    /** test's binary operators: with one of them in the middle of three arguments, the others are operands. */
    private static final Set<String> TEST_BINARY = Set.of("=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le",
            "-gt", "-ge", "-nt", "-ot", "-ef");

    /** find's tests and actions that only read or print, each with the number of arguments it takes. */
    private static final Map<String, Integer> FIND_PRIMARIES = findPrimaries();
    private static final Pattern FIND_NEWER = Pattern.compile("-newer[aBcmt][aBcmt]");

    private ReadOnlyCommands() {
    }

    /**
     * {@code true} when {@code exeWord args} cannot run a program or write. {@code exeWord} is the program as written:
     * a bare name or a path in a system directory ({@code ./cat} is some other program); {@code expanded} holds the
     * indexes of the arguments the shell computes, {@code splits} those it may split into several words or drop;
     * {@code argumentsFromInput} when {@code xargs} adds more.
     */
    static boolean readOnly(String exeWord, List<String> args, Set<Integer> expanded, Set<Integer> splits,
            boolean argumentsFromInput) {
        if (!systemProgram(exeWord)) {
            return false;
        }
        String exe = CommandRules.exeName(exeWord);
        if (ANY_ARGUMENTS.contains(exe)) {
            return true;
        }
        if (argumentsFromInput) {
            return false; // xargs appends words we cannot see: only commands that read any argument safely
        }
        return switch (exe) {
            case "git" -> GitReads.readOnly(args, expanded);
            case "sed" -> sed(args, expanded);
            case "find" -> find(args, expanded);
            case "sort" -> SORT.parse(args, expanded) != null;
            case "uniq" -> atMostOneOperand(UNIQ.parse(args, expanded));
            case "tree" -> TREE.parse(args, expanded) != null;
            case "file" -> FILE.parse(args, expanded) != null;
            case "date" -> date(args, expanded);
            case "hostname" -> {
                Grammar.Parsed p = HOSTNAME.parse(args, expanded);
                yield p != null && p.operands().isEmpty();
            }
            case "rg" -> RG.parse(args, expanded) != null;
            case "xxd" -> xxd(args, expanded);
            // interactive commands (!cmd, v to edit) and log files (-o/-O) hide behind options: files only
            case "less", "more" -> noOptions(args, expanded);
            case "test", "[" -> splits.isEmpty() && test(exe, args, expanded);
            // printf -v VAR assigns a variable (PATH…); only the first word can be an option
            case "printf" -> !args.isEmpty() && !expanded.contains(0) && !args.get(0).startsWith("-")
                    || args.size() > 1 && args.get(0).equals("--") && !expanded.contains(1);
            default -> false;
        };
    }

    /** The indexes of {@code expanded} from {@code from} on, renumbered from 0. */
    static Set<Integer> shift(Set<Integer> expanded, int from) {
        Set<Integer> s = new HashSet<>();
        for (int e : expanded) {
            if (e >= from) {
                s.add(e - from);
            }
        }
        return s;
    }

    /** {@code true} for a program name that PATH resolves ({@code cat}) or a path in a system directory. */
    static boolean systemProgram(String word) {
        return word.equals(word.toLowerCase(Locale.ROOT))
                && (!word.contains("/") || SYSTEM_PROGRAM.matcher(word).matches());
    }

    /**
     * {@code true} when the assignment {@code NAME=value} in front of a command (or alone) cannot make a program run
     * another one: a locale or display variable, or a shell variable (lower case by convention: programs read
     * upper-case ones such as {@code PATH}, {@code LD_PRELOAD}, {@code PAGER}, {@code GIT_*}).
     */
    static boolean safeAssignment(String assignment) {
        int eq = assignment.indexOf('=');
        String name = assignment.substring(0, eq > 0 && assignment.charAt(eq - 1) == '+' ? eq - 1 : eq);
        return SAFE_VARIABLES.contains(name) || LOCALE_VARIABLE.matcher(name).matches()
                || LOWER_CASE.matcher(name).matches() && !TIED_LOWER_CASE.contains(name);
    }

    /**
     * {@code true} when a wrapper's own words (its options, their values, {@code env}'s assignments, the
     * {@code timeout} duration) change nothing but how its command runs.
     */
    static boolean safeWrapper(String wrapper, List<String> words, Set<Integer> expanded) {
        Grammar g = WRAPPERS.get(wrapper);
        if (g == null) {
            return false; // nohup writes nohup.out; ionice, chrt, taskset, setsid… change scheduling or sessions
        }
        Grammar.Parsed p = g.parse(words, expanded);
        if (p == null) {
            return false;
        }
        List<String> operands = p.operands();
        return switch (wrapper) {
            case "env" -> operands.stream().allMatch(o -> o.equals("-") || safeAssignment(o));
            case "timeout" -> operands.size() <= 1;
            default -> operands.isEmpty();
        };
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static boolean atMostOneOperand(Grammar.Parsed p) {
        return p != null && p.operands().size() <= 1 && !p.expandedOperand();
    }

    private static boolean noOptions(List<String> args, Set<Integer> expanded) {
        return expanded.isEmpty() && args.stream().noneMatch(a -> a.startsWith("-") || a.startsWith("+"));
    }

    /**
     * test / [: bash's {@code test -v 'a[$(cmd)]'} (and {@code -R}) evaluates the subscript, running the command.
     * Neither may appear, and a computed word (quoted: it stays one word) may only stand where test reads an
     * operand, never an operator: the second of two arguments, or around a literal binary operator.
     */
    private static boolean test(String exe, List<String> args, Set<Integer> expanded) {
        List<String> a = exe.equals("[") && !args.isEmpty() && args.get(args.size() - 1).equals("]")
                && !expanded.contains(args.size() - 1) ? args.subList(0, args.size() - 1) : args;
        if (a.contains("-v") || a.contains("-R")) {
            return false;
        }
        if (expanded.isEmpty() || a.size() == 1) {
            return true;
        }
        if (a.size() == 2) {
            return !expanded.contains(0);
        }
        return a.size() == 3 && !expanded.contains(1) && TEST_BINARY.contains(a.get(1));
    }

    private static boolean date(List<String> args, Set<Integer> expanded) {
        Grammar.Parsed p = DATE.parse(args, expanded);
        return p != null && !p.expandedOperand() && p.operands().stream().allMatch(o -> o.startsWith("+"));
    }

    /** sed: known options, and a script whose commands neither run ({@code e}, {@code s///e}) nor write. */
    private static boolean sed(List<String> args, Set<Integer> expanded) {
        Grammar.Parsed p = SED.parse(args, expanded);
        if (p == null) {
            return false;
        }
        List<String> scripts = p.values("-e", "--expression");
        if (scripts.isEmpty()) {
            if (p.operands().isEmpty() || p.firstOperandExpanded()) {
                return false;
            }
            scripts = List.of(p.operands().get(0));
        }
        return SedScript.of(String.join("\n", scripts)).readOnly();
    }

    /**
     * xxd [options] [infile [outfile]]: its options only format (they end at the first operand), a second operand
     * is written.
     */
    private static boolean xxd(List<String> args, Set<Integer> expanded) {
        Set<String> flags = Set.of("-a", "-autoskip", "-b", "-bits", "-C", "-capitalize", "-e", "-E", "-EBCDIC",
                "-i", "-include", "-p", "-ps", "-postscript", "-plain", "-r", "-revert", "-u", "-d", "-h", "-help",
                "-v", "-version");
        Set<String> valued = Set.of("-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-s", "-seek", "-n",
                "-name", "-R");
        Pattern attached = Pattern.compile("-[cglos][+-]?(0x)?[0-9a-fA-F]+");
        int k = 0;
        while (k < args.size() && args.get(k).startsWith("-") && args.get(k).length() > 1) {
            if (expanded.contains(k)) {
                return false;
            }
            String a = args.get(k).startsWith("--") && args.get(k).length() > 2 ? args.get(k).substring(1)
                    : args.get(k);
            if (a.equals("-")) {
                k++;
                break; // "--"
            }
            if (valued.contains(a)) {
                if (expanded.contains(k + 1)) {
                    return false;
                }
                k += 2;
            } else if (flags.contains(a) || attached.matcher(a).matches()) {
                k++;
            } else {
                return false;
            }
        }
        for (int j = k; j < args.size(); j++) {
            if (expanded.contains(j)) {
                return false;
            }
        }
        return args.size() - k <= 1;
    }

    /**
     * find: start points, then tests and printing actions only; {@code -exec}/{@code -execdir}/{@code -ok}/
     * {@code -okdir} when the command they run is itself read-only ({@code {}} standing for a file name).
     */
    private static boolean find(List<String> args, Set<Integer> expanded) {
        if (!expanded.isEmpty()) {
            return false; // a computed word could be any primary (-delete, -exec …)
        }
        int k = 0;
        while (k < args.size()) {
            String a = args.get(k);
            if (a.equals("-H") || a.equals("-L") || a.equals("-P") || a.matches("-O[0-9]")) {
                k++;
            } else if (a.equals("-D") && k + 1 < args.size()) {
                k += 2;
            } else {
                break;
            }
        }
        while (k < args.size() && !args.get(k).startsWith("-") && !args.get(k).equals("(")
                && !args.get(k).equals("!") && !args.get(k).equals(",")) {
            k++; // start points
        }
        while (k < args.size()) {
            String a = args.get(k);
            Integer arity = FIND_PRIMARIES.get(a);
            if (arity != null) {
                k += 1 + arity;
            } else if (FIND_NEWER.matcher(a).matches()) {
                k += 2;
            } else if (a.equals("-exec") || a.equals("-execdir") || a.equals("-ok") || a.equals("-okdir")) {
                int end = findExecEnd(args, k + 1);
                if (end < 0) {
                    return false;
                }
                List<String> words = args.subList(k + 1, end);
                Set<Integer> placeholders = new HashSet<>();
                for (int j = 0; j < words.size(); j++) {
                    if (words.get(j).contains("{}")) {
                        placeholders.add(j); // a file name: its text is not known
                    }
                }
                if (!CommandRules.readOnlyWords(words, placeholders, Set.of())) {
                    return false;
                }
                k = end + 1;
            } else {
                return false; // -delete, -fprint, -fprint0, -fprintf, -fls, and anything not listed
            }
        }
        return true;
    }

    /**
     * The index of the word ending a {@code -exec} whose command starts at {@code from}: {@code ;}, or {@code +}
     * right after {@code {}}; -1 when there is none.
     */
    static int findExecEnd(List<String> args, int from) {
        for (int j = from; j < args.size(); j++) {
            if (args.get(j).equals(";") || args.get(j).equals("+") && j > from && args.get(j - 1).equals("{}")) {
                return j;
            }
        }
        return -1;
    }

    private static Map<String, Integer> findPrimaries() {
        Map<String, Integer> m = new HashMap<>();
        for (String p : ("-print -print0 -ls -prune -quit -true -false -not -a -and -o -or , ( ) ! -depth -d -mount"
                + " -xdev -noleaf -ignore_readdir_race -noignore_readdir_race -daystart -follow -warn -nowarn"
                + " -nouser -nogroup -empty -readable -writable -executable").split(" ")) {
            m.put(p, 0);
        }
        for (String p : ("-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype"
                + " -size -mtime -mmin -atime -amin -ctime -cmin -used -newer -anewer -cnewer -user -group -uid -gid"
                + " -perm -links -inum -samefile -lname -ilname -fstype -maxdepth -mindepth -printf -context"
                + " -files0-from").split(" ")) {
            m.put(p, 1);
        }
        return Map.copyOf(m);
    }

    // ---------------------------------------------------------------------------------------------------------------

    /**
     * The options a command accepts in a read-only call, parsed the way GNU getopt does: options anywhere before
     * {@code --} (permuted), short ones clustered ({@code -la}), a short option's value attached ({@code -n5}) or
     * the next word, long ones exact ({@code --name}, {@code --name=value}, {@code --name value}). Only the exact
     * spelling counts: getopt also takes an unambiguous abbreviation ({@code --out}), which is therefore unknown.
     *
     * @param flags          short options without a value
     * @param valued         short options with a value
     * @param optional       short options whose value, if any, is attached ({@code -u[mode]})
     * @param longFlags      long options without a value
     * @param longValued     long options with a value
     * @param longOptional   long options whose value, if any, follows {@code =}
     * @param attachedValues {@code false} when a short option's value is always the next word and the cluster goes
     *                       on ({@code tree -aL 2})
     */
    record Grammar(String flags, String valued, String optional, Set<String> longFlags, Set<String> longValued,
            Set<String> longOptional, boolean attachedValues) {

        /** A grammar from short option letters and a list of long options: {@code --a}, {@code --b=}, {@code --c[=]}. */
        static Grammar of(String flags, String valued, String optional, String longs) {
            return of(flags, valued, optional, longs, true);
        }

        static Grammar separateValues(String flags, String valued, String longs) {
            return of(flags, valued, "", longs, false);
        }

        private static Grammar of(String flags, String valued, String optional, String longs, boolean attached) {
            Set<String> f = new HashSet<>();
            Set<String> v = new HashSet<>();
            Set<String> o = new HashSet<>();
            for (String l : longs.trim().split("\\s+")) {
                if (l.isEmpty()) {
                    continue;
                }
                if (!l.startsWith("--")) {
                    throw new IllegalArgumentException("a long option starts with --: " + l);
                }
                if (l.endsWith("[=]")) {
                    o.add(l.substring(0, l.length() - 3));
                } else if (l.endsWith("=")) {
                    v.add(l.substring(0, l.length() - 1));
                } else {
                    f.add(l);
                }
            }
            return new Grammar(flags, valued, optional, Set.copyOf(f), Set.copyOf(v), Set.copyOf(o), attached);
        }

        /** This grammar with more options. */
        Grammar with(String moreFlags, String moreValued, String moreOptional, String longs) {
            Grammar more = of(moreFlags, moreValued, moreOptional, longs, attachedValues);
            return new Grammar(flags + moreFlags, valued + moreValued, optional + moreOptional,
                    union(longFlags, more.longFlags), union(longValued, more.longValued),
                    union(longOptional, more.longOptional), attachedValues);
        }

        /** This grammar without some short options (another command gives the letter another meaning). */
        Grammar without(String letters) {
            return new Grammar(strip(flags, letters), strip(valued, letters), strip(optional, letters), longFlags,
                    longValued, longOptional, attachedValues);
        }

        private static String strip(String s, String letters) {
            StringBuilder b = new StringBuilder();
            for (char c : s.toCharArray()) {
                if (letters.indexOf(c) < 0) {
                    b.append(c);
                }
            }
            return b.toString();
        }

        private static Set<String> union(Set<String> a, Set<String> b) {
            Set<String> u = new HashSet<>(a);
            u.addAll(b);
            return Set.copyOf(u);
        }

        /**
         * The options and operands of {@code args}, or {@code null} when an option is not in the grammar or a word
         * the shell computes stands where an option could be (before {@code --}, or as an option's value).
         */
        Parsed parse(List<String> args, Set<Integer> expanded) {
            List<String[]> options = new ArrayList<>();
            List<String> operands = new ArrayList<>();
            boolean expandedOperand = false;
            boolean firstOperandExpanded = false;
            boolean endOfOptions = false;
            for (int k = 0; k < args.size(); k++) {
                String a = args.get(k);
                if (endOfOptions || a.equals("-") || !a.startsWith("-")) {
                    if (expanded.contains(k)) {
                        if (!endOfOptions) {
                            return null;
                        }
                        expandedOperand = true;
                        firstOperandExpanded |= operands.isEmpty();
                    }
                    operands.add(a);
                    continue;
                }
                if (expanded.contains(k)) {
                    return null;
                }
                if (a.equals("--")) {
                    endOfOptions = true;
                } else if (a.startsWith("--")) {
                    int eq = a.indexOf('=');
                    String name = eq < 0 ? a : a.substring(0, eq);
                    if (eq < 0 && longFlags.contains(name) || longOptional.contains(name)) {
                        options.add(new String[] {name, eq < 0 ? null : a.substring(eq + 1)});
                    } else if (longValued.contains(name)) {
                        if (eq >= 0) {
                            options.add(new String[] {name, a.substring(eq + 1)});
                        } else {
                            if (expanded.contains(k + 1)) {
                                return null;
                            }
                            options.add(new String[] {name, k + 1 < args.size() ? args.get(k + 1) : null});
                            k++;
                        }
                    } else {
                        return null;
                    }
                } else {
                    int next = k;
                    for (int j = 1; j < a.length(); j++) {
                        char c = a.charAt(j);
                        String name = "-" + c;
                        if (flags.indexOf(c) >= 0) {
                            options.add(new String[] {name, null});
                        } else if (optional.indexOf(c) >= 0) {
                            options.add(new String[] {name, j + 1 < a.length() ? a.substring(j + 1) : null});
                            break;
                        } else if (valued.indexOf(c) >= 0) {
                            if (attachedValues && j + 1 < a.length()) {
                                options.add(new String[] {name, a.substring(j + 1)});
                                break;
                            }
                            next++;
                            if (expanded.contains(next)) {
                                return null;
                            }
                            options.add(new String[] {name, next < args.size() ? args.get(next) : null});
                            if (attachedValues) {
                                break;
                            }
                        } else {
                            return null;
                        }
                    }
                    k = next;
                }
            }
            return new Parsed(options, operands, expandedOperand, firstOperandExpanded);
        }

        /**
         * What {@link #parse} found.
         *
         * @param options              each option as written ({@code -n}, {@code --max-count}) with its value or
         *                             {@code null}
         * @param operands             the other words
         * @param expandedOperand      an operand (after {@code --}) is computed by the shell
         * @param firstOperandExpanded the first operand is
         */
        record Parsed(List<String[]> options, List<String> operands, boolean expandedOperand,
                boolean firstOperandExpanded) {

            /** {@code true} when one of {@code names} was given. */
            boolean has(String... names) {
                for (String[] o : options) {
                    for (String n : names) {
                        if (o[0].equals(n)) {
                            return true;
                        }
                    }
                }
                return false;
            }

            /** The values given to the options {@code names}, in order. */
            List<String> values(String... names) {
                List<String> v = new ArrayList<>();
                for (String[] o : options) {
                    for (String n : names) {
                        if (o[0].equals(n) && o[1] != null) {
                            v.add(o[1]);
                        }
                    }
                }
                return v;
            }
        }
    }
}
