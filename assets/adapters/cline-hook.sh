#!/bin/sh
# agent-handover hook for Cline's {hook} event ({what}).
# Installed by `agent-handover install cline`; taken out again by
# `agent-handover install --remove cline`.
# Format: Cline hooks (https://docs.cline.bot/customization/hooks): an
# executable named after the event in .clinerules/hooks/, JSON in on stdin,
# {"cancel": false, "contextModification": "..."} out on stdout.
# Cline CLI 3 runs its task hooks in the background and drops their output,
# but reads every .md file in .clinerules/ into each task's system prompt
# (https://docs.cline.bot/customization/cline-rules): so the hook also
# leaves the brief there, for the next task (without agent-handover, why).
if command -v agent-handover >/dev/null 2>&1; then
  exec agent-handover hook {event} --agent cline
fi
brief="$(dirname "$0")"/{brief}
printf '%s\n' {missing} >"$brief.$$" && mv -f "$brief.$$" "$brief"
printf '%s\n' {fallback}
