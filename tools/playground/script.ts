/**
 * The page's one script: re-reads the live part (the thread, or the list of issues) every second
 * and swaps it in when it changed, so a person sees the agent's ask and the bot's replies arrive
 * without losing what they are typing.
 */
export const PAGE_SCRIPT = `"use strict";
const live = document.getElementById("live");
if (live && live.dataset.src) {
  let last = null;
  let busy = false;
  setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch(live.dataset.src, { cache: "no-store" });
      const text = response.ok ? await response.text() : null;
      if (text !== null && text !== last) {
        last = text;
        live.innerHTML = text;
      }
    } catch {
      // The playground is stopping or busy: the next tick tries again.
    } finally {
      busy = false;
    }
  }, 1000);
}
`;
