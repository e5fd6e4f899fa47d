/** The comment syntax for humans, as the app explains it in a reply. Mirrors README "Comment syntax". */
export const HELP_TEXT = `**Commands** (on the first line of a comment; for users allowed to answer):
- \`/agent\` start the agent on this issue
- \`/answer N TEXT\` answer question N of the open question
- \`/defaults\` accept every default of the open question
- \`/note TEXT\` guidance folded into the agent's next round
- \`/stop\` stop the running agent · \`/cancel\` close the open question without resuming
- \`/retry\` run the last round again · \`/reopen TEXT\` correct the last answer and re-run with it
- \`/status\` show where things stand · \`/help\` this text
- \`/discuss\` talk without answering (so does a comment that starts with \`@someone\` else)

To answer a question, reply with the option's number or name (\`2\`, \`Option 2\`, \`SQLite\`), or with free text; with several questions, one line each (\`1. Postgres\`, \`2: yes\`). To vote on an approval, reply \`approve\` (\`lgtm\`, \`yes\`, 👍) or \`deny\` (\`no\`, \`reject\`), optionally followed by a note.`;
