#!/bin/sh
# A session whose result reports an error, then exit 1.
. "$(dirname "$0")/pids.sh"
cat "$here/session.ndjson"
sed -e 's/"subtype":"success"/"subtype":"error"/' -e 's/"is_error":false/"is_error":true/' "$here/result.ndjson"
exit 1
