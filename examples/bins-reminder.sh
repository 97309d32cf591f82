#!/bin/sh
# A household reminder from cron: posts one message into a room with a bot token.
#
#   # every Tuesday at 18:00
#   0 18 * * 2  CHORUS_ROOM=Flat /path/to/bins-reminder.sh "Bins go out tonight"
#
# Settings come from the environment:
#   CHORUS_TOKEN_FILE  file holding the bot's token (default ~/.config/chorus/bot.token)
#   CHORUS_ROOM        room id or name (default Flat)
#   CHORUS_HOST, CHORUS_PORT   the server (default 127.0.0.1 7667)
#   CHORUS_TRUST       how to check the certificate: --ca FILE, --fingerprint SHA256,
#                      or empty to use the known_hosts entry made by an earlier run
#   CHORUS             the chorus binary (default: chorus on PATH)
# Exit status is chorus's: 0 posted, 1 refused by the server, 2 could not connect.
set -eu

message=${1:-"Bins go out tonight"}
token_file=${CHORUS_TOKEN_FILE:-"$HOME/.config/chorus/bot.token"}
room=${CHORUS_ROOM:-Flat}
chorus=${CHORUS:-chorus}

# shellcheck disable=SC2086 # CHORUS_TRUST is two words on purpose
exec "$chorus" --host "${CHORUS_HOST:-127.0.0.1}" --port "${CHORUS_PORT:-7667}" ${CHORUS_TRUST:-} \
    --token-file "$token_file" SAY "$room" "$message"
