# Sourced by ./mvnw, ./cohort and .ci/run: picks a JDK >= 21 and exports JAVA_HOME (and COHORT_JAVA_MAJOR).
# Order: JAVA_HOME when it is >= 21; then `java` on the PATH; then JDKs installed under /usr/lib/jvm
# (the machine's default java is 17, with a Temurin 25 beside it). Fails with one line when none fits.
cohort_java_major() { # $1 = path to a java binary; prints its feature version or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}
cohort_select_jdk() {
  _cand=""
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then _cand="$JAVA_HOME"; fi
  if [ -n "$_cand" ]; then
    _v=$(cohort_java_major "$_cand/bin/java")
    if [ -n "$_v" ] && [ "$_v" -ge 21 ]; then export JAVA_HOME="$_cand" COHORT_JAVA_MAJOR="$_v"; return 0; fi
  fi
  _best=""; _bestv=0
  case $- in *f*) _cohort_noglob=1; set +f ;; *) _cohort_noglob=0 ;; esac  # mvnw runs with set -f
  _path_java=$(command -v java 2>/dev/null || true)
  if [ -n "$_path_java" ]; then
    _real=$(readlink -f "$_path_java"); _home=$(dirname "$(dirname "$_real")")
    set -- "$_home" /usr/lib/jvm/* /opt/java/* /opt/jdk*
  else
    set -- /usr/lib/jvm/* /opt/java/* /opt/jdk*
  fi
  for _h in "$@"; do
    [ -x "$_h/bin/java" ] && [ -x "$_h/bin/javac" ] || continue
    _v=$(cohort_java_major "$_h/bin/java")
    [ -n "$_v" ] || continue
    if [ "$_v" -ge 21 ] && [ "$_v" -gt "$_bestv" ]; then _best="$_h"; _bestv="$_v"; fi
  done
  [ "$_cohort_noglob" = 1 ] && set -f
  if [ -z "$_best" ]; then
    echo "cohort: no JDK >= 21 found (JAVA_HOME=${JAVA_HOME:-unset}; searched PATH and /usr/lib/jvm) - install one, e.g. 'apt-get install openjdk-21-jdk' or Temurin 21+, and/or set JAVA_HOME" >&2
    return 1
  fi
  export JAVA_HOME="$_best" COHORT_JAVA_MAJOR="$_bestv"
  export PATH="$JAVA_HOME/bin:$PATH"
}
