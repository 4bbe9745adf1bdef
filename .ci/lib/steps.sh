# Timed steps for .ci/test: each step prints its name, and when the next begins (or the run
# ends, passed or failed) its wall time is kept; at the end a table of every step, its time
# and its budget, and the total. A step past its budget gets a warning, not a failure: the
# budgets are this project's plan for a cold run on 2 cores, and a busy machine may miss
# them without anything being wrong. Sourced; defines functions and STEPS_* variables.
#
#   step NAME BUDGET_S   start the step NAME, planned to take at most BUDGET_S seconds
#   steps_report         end the last step and print the table (the EXIT trap calls it)

STEPS_NAMES=() STEPS_TIMES=() STEPS_BUDGETS=()
STEPS_STARTED=$SECONDS STEPS_CURRENT=''

steps_end_current() {
  [ -n "$STEPS_CURRENT" ] || return 0
  local took=$((SECONDS - STEPS_T0))
  STEPS_NAMES+=("$STEPS_CURRENT") STEPS_TIMES+=("$took") STEPS_BUDGETS+=("$STEPS_BUDGET")
  if [ "$took" -gt "$STEPS_BUDGET" ]; then
    printf 'warning: the step "%s" took %d s, over its budget of %d s\n' "$STEPS_CURRENT" "$took" "$STEPS_BUDGET"
  fi
  STEPS_CURRENT=''
}

step() {
  steps_end_current
  STEPS_CURRENT=$1 STEPS_BUDGET=$2 STEPS_T0=$SECONDS
  printf '\n== %s\n' "$1"
}

steps_report() {
  local status=$? i total budget=0 mark
  steps_end_current
  total=$((SECONDS - STEPS_STARTED))
  printf '\n== wall time of each step (budget: a cold run on 2 cores)\n'
  printf '%6s %7s  %s\n' seconds budget step
  for i in "${!STEPS_NAMES[@]}"; do
    mark=''
    [ "${STEPS_TIMES[$i]}" -le "${STEPS_BUDGETS[$i]}" ] || mark='  (over budget)'
    budget=$((budget + STEPS_BUDGETS[i]))
    printf '%6d %7d  %s%s\n' "${STEPS_TIMES[$i]}" "${STEPS_BUDGETS[$i]}" "${STEPS_NAMES[$i]}" "$mark"
  done
  printf '%6d %7d  in all (%d min)%s\n' "$total" "$budget" "$(((total + 59) / 60))" \
    "$([ "$status" -eq 0 ] || echo ", stopped by a failure (status $status)")"
  return "$status"
}
