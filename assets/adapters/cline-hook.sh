#!/bin/sh
# agent-handover hook for Cline's {hook} event ({what}).
# Installed by `agent-handover install cline`; taken out again by
# `agent-handover install --remove cline`.
# Format: Cline hooks (https://docs.cline.bot/customization/hooks): an
# executable named after the event in .clinerules/hooks/, JSON in on stdin,
# {"cancel": false, "contextModification": "..."} out on stdout.
# Cline CLI 3 runs its task hooks in the background and drops their output,
# but reads every .md file in .clinerules/ into each task's system prompt
# (https://docs.cline.bot/customization/cline-rules): so this hook also
# leaves the brief there, for the next task.
here="$(dirname "$0")"
brief="$here"/{brief}
if command -v agent-handover >/dev/null 2>&1; then
  agent-handover hook {event} --agent cline
  # Only a whole brief replaces the last one (its warnings stay out of the
  # rules, which go into every prompt).
  if (cd "$here"/{root} && agent-handover brief --agent cline) </dev/null >"$brief.$$" 2>/dev/null; then
    mv -f "$brief.$$" "$brief"
  else
    rm -f "$brief.$$"
  fi
  exit 0
fi
printf '%s\n' {missing} >"$brief.$$" && mv -f "$brief.$$" "$brief"
printf '%s\n' {fallback}
