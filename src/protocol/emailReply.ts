/**
 * The headers mail clients put above the quoted message when someone answers a GitHub notification
 * by e-mail, in the languages GitHub users write. This module is the one place that knows them;
 * visibleText.ts cuts the reply at the first one (src/protocol/visibleText.ts).
 *
 * Sources: the header formats of Gmail, Apple Mail, Outlook and Thunderbird as collected by the
 * open-source reply parsers (GitHub's email_reply_parser, crisp-oss/email-reply-parser,
 * alfonsrv/mail-parser-reply, mailgun/talon) and their test mails.
 */

interface MailLanguage {
  /** "On <date>, <name> wrote:" as this language's clients write it, matched on the whole (unwrapped) line. */
  wrote: readonly RegExp[];
  /** Outlook's header block: the sender field, which starts it, and the fields that follow it. */
  from: readonly string[];
  fields: readonly string[];
  /** The text of an "-----Original Message-----" rule. */
  originalMessage: readonly string[];
}

export const MAIL_LANGUAGES: Readonly<Record<string, MailLanguage>> = {
  en: {
    // Gmail / Apple Mail / Thunderbird: "On Mon, 2 Dec 2026 at 10:00, Alice <a@b.c> wrote:".
    wrote: [/^On\s.*\bwrote\s*:$/i],
    from: ["From"],
    fields: ["Sent", "To", "Date", "Subject", "Cc"],
    originalMessage: ["Original Message"],
  },
  de: {
    // Gmail: "Am Do., 3. Dez. 2026 um 10:00 Uhr schrieb Alice <a@b.c>:"; Apple Mail: "Am 03.12.2026 um 10:00 schrieb Alice <a@b.c>:".
    wrote: [/^Am\s.*\bschrieb\b.*:$/i, /^.+\S@\S+\s+schrieb\s*:$/i],
    from: ["Von"],
    fields: ["Gesendet", "An", "Datum", "Betreff", "Cc"],
    originalMessage: ["Ursprüngliche Nachricht"],
  },
  fr: {
    // Gmail: "Le jeu. 3 déc. 2026 à 10:00, Alice <a@b.c> a écrit :" (a space, often no-break, before the colon).
    wrote: [/^Le\s.*\ba\s+écrit\s*:$/i],
    from: ["De"],
    fields: ["Envoyé", "À", "A", "Date", "Objet", "Cc"],
    originalMessage: ["Message d'origine"],
  },
  es: {
    // Gmail: "El jue, 3 dic 2026 a las 10:00, Alice (<a@b.c>) escribió:".
    wrote: [/^El\s.*\bescribió\s*:$/i],
    from: ["De"],
    fields: ["Enviado", "Enviado el", "Para", "Fecha", "Asunto", "CC"],
    originalMessage: ["Mensaje original"],
  },
  pt: {
    // Gmail: "Em qui., 3 de dez. de 2026 às 10:00, Alice <a@b.c> escreveu:".
    wrote: [/^Em\s.*\bescreveu\s*:$/i],
    from: ["De"],
    fields: ["Enviado", "Enviada em", "Para", "Data", "Assunto", "Cc"],
    originalMessage: ["Mensagem original"],
  },
  it: {
    // Gmail: "Il giorno gio 3 dic 2026 alle ore 10:00 Alice <a@b.c> ha scritto:".
    wrote: [/^Il\s.*\bha\s+scritto\s*:$/i],
    from: ["Da"],
    fields: ["Inviato", "A", "Data", "Oggetto", "Cc"],
    originalMessage: ["Messaggio originale"],
  },
  nl: {
    // Gmail: "Op do 3 dec 2026 om 10:00 schreef Alice <a@b.c>:"; Apple Mail: "Op 3 dec. 2026 om 10:00 heeft Alice <a@b.c> het volgende geschreven:".
    wrote: [/^Op\s.*\bschreef\b.*:$/i, /^Op\s.*\bhet\s+volgende\s+geschreven\s*:$/i],
    from: ["Van"],
    fields: ["Verzonden", "Aan", "Datum", "Onderwerp", "Cc"],
    originalMessage: ["Oorspronkelijk bericht"],
  },
  ja: {
    // Gmail: "2026年12月3日(木) 10:00 Alice <a@b.c>:" (GitHub shows the address without its brackets); Apple Mail: "2026/12/03 10:00、Alice <a@b.c>のメール:";
    // Thunderbird and others: "2026/12/03 10:00 に Alice が書きました:", "Alice さんは書きました:".
    wrote: [/^\d{4}年\d{1,2}月\d{1,2}日.*\S@\S+\s*[:：]$/, /^.+(?:が書きました|さんは書きました|のメール)\s*[:：]$/],
    from: ["差出人"],
    fields: ["送信日時", "宛先", "件名", "CC"],
    originalMessage: ["元のメッセージ"],
  },
  zh: {
    // Gmail: "Alice <a@b.c> 于2026年12月3日周四 10:00写道：" (traditional: "… 於 2026年12月3日 週四 上午10:00寫道："); Foxmail: "在 2026-12-03 10:00，Alice 写道：".
    wrote: [/^.+(?:写道|寫道)\s*[:：]$/],
    from: ["发件人", "寄件者"],
    fields: ["发送时间", "收件人", "抄送", "主题", "日期", "寄件日期", "收件者", "副本", "主旨"],
    originalMessage: ["原始邮件", "原始郵件"],
  },
};

const LANGUAGES = Object.values(MAIL_LANGUAGES);
const WROTE = LANGUAGES.flatMap((language) => language.wrote);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const names = (pick: (language: MailLanguage) => readonly string[]) =>
  [...new Set(LANGUAGES.flatMap(pick))]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|");
// Outlook bolds the field names in HTML mail that GitHub converts to Markdown ("**From:**"); French
// puts a (no-break) space before the colon; Chinese and Japanese may use the full-width colon.
const field = (alternatives: string) => new RegExp(`^\\s*(?:\\*\\*)?(?:${alternatives})\\s*(?:\\*\\*)?\\s*[:：]`, "i");
const FROM_FIELD = field(names((language) => language.from));
const OTHER_FIELD = field(names((language) => language.fields));
const ORIGINAL_MESSAGE = new RegExp(`^\\s*-{2,}\\s*(?:${names((language) => language.originalMessage)})\\s*-{2,}$`, "i");
const OUTLOOK_RULE = /^\s*_{10,}$/;

// A header holds a date, a name and an address; a longer line is prose, and is not searched (the
// patterns backtrack over a line, which must stay cheap on a 65,536-character comment).
const HEADER_MAX_CHARS = 400;

/** Whether `line` is a whole "<date>, <name> wrote:" header in any known language. */
export function isWroteHeader(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= HEADER_MAX_CHARS && WROTE.some((pattern) => pattern.test(trimmed));
}

// What the first half of a wrapped header holds and an answer line rarely does: a year or an address.
const HEADER_FRAGMENT = /\d{4}|\S@\S/;

/**
 * Whether a "wrote:" header starts at `line`: on the line itself, or wrapped over it and `next`
 * (mail clients wrap a long header). When `next` is a whole header on its own (the Japanese and
 * Chinese forms have no fixed first word), `line` joins it only if it holds a year or an address.
 */
export function startsWroteHeader(line: string, next: string | undefined): boolean {
  if (isWroteHeader(line)) return true;
  if (next === undefined || next.trim() === "" || line.trim() === "") return false;
  if (!isWroteHeader(`${line.trim()} ${next.trim()}`)) return false;
  return !isWroteHeader(next) || HEADER_FRAGMENT.test(line);
}

/** "From:" and its translations: the first field of Outlook's header block. */
export function isOutlookFromField(line: string): boolean {
  return FROM_FIELD.test(line);
}

/** "Sent:", "To:", "Subject:" and their translations: the fields after Outlook's "From:". */
export function isOutlookField(line: string): boolean {
  return OTHER_FIELD.test(line);
}

/** The line of underscores Outlook puts above its header block. */
export function isOutlookRule(line: string): boolean {
  return OUTLOOK_RULE.test(line);
}

/** "-----Original Message-----" and its translations. */
export function isOriginalMessageRule(line: string): boolean {
  return ORIGINAL_MESSAGE.test(line);
}
