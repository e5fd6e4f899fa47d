export interface StrippedCounts {
  /** HTML comments removed (copies of our markers included). */
  htmlComments: number;
  /** Invisible, bidirectional-control, format and control characters removed. */
  invisible: number;
  /** Elements removed with their content: hidden by `hidden`, `aria-hidden="true"` or a style, never rendered (`<script>`…), or declarations (`<!X>`, `<?x>`, CDATA). */
  hiddenHtml: number;
  /** Images (Markdown or `<img>`) whose alt text was dropped; each image is shown as "[image]". */
  imageAlt: number;
  /** HTML entity references decoded. */
  entities: number;
}

export interface CleanedText {
  text: string;
  stripped: StrippedCounts;
  /** Characters of the input that were hidden content (comments, invisible characters, hidden elements, alt text). */
  hiddenChars: number;
}

/** Characters of the input found to be hidden content, summed by every pass. */
export interface HiddenChars {
  chars: number;
}
