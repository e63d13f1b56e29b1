#!/bin/sh
# agent-handover hook for Cline's {hook} event ({what}).
# Installed by `agent-handover install cline`; taken out again by
# `agent-handover install --remove cline`.
# Format: Cline hooks (https://docs.cline.bot/customization/hooks): an
# executable named after the event in .clinerules/hooks/, JSON in on stdin,
# {"cancel": false, "contextModification": "..."} out on stdout.
if command -v agent-handover >/dev/null 2>&1; then
  exec agent-handover hook {event} --agent cline
fi
printf '%s\n' {fallback}
