/** The status page's style sheet. */
export const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 1.5rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;border-bottom:1px solid #d0d7de;padding-bottom:.25rem;margin-top:1.5rem}
h3{font-size:1rem;margin:.25rem 0}.count{background:#eaeef2;border-radius:1em;padding:0 .5em;font-size:.85rem}
.gate{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:.75rem 0}
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #d0d7de;padding:.25rem 0}nav a[aria-current]{font-weight:600;color:#1f2328;text-decoration:none}
nav form{margin-left:auto}.tally{font-weight:600}
.meta,.links,.who,.paths,#summary{color:#59636e;font-size:.9rem;margin:.25rem 0}.kind{font-weight:600}
.overdue{color:#cf222e;font-weight:600}.context{white-space:pre-wrap}.question .text{font-weight:600;margin:.4rem 0 .1rem;white-space:pre-wrap}
.entries{padding-left:1.2rem}.entry{margin:.5rem 0}.entry .text{margin:.1rem 0;white-space:pre-wrap}.via{font-weight:600}
.options{margin:.1rem 0}.options .default{font-weight:600}.answered{color:#1a7f37}.empty{color:#59636e}
#error{color:#cf222e}a{color:#0969da}code{font-size:.85rem}
`;
