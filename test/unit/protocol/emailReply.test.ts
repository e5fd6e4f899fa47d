import { describe, expect, it } from "vitest";
import {
  isOriginalMessageRule,
  isOutlookField,
  isOutlookFromField,
  isWroteHeader,
  MAIL_LANGUAGES,
  startsWroteHeader,
} from "../../../src/protocol/emailReply.js";
import { parseReply } from "../../../src/protocol/reply.js";
import { visibleReplyText } from "../../../src/protocol/visibleText.js";

const quote = "> Which database?\n>\n> 1. SQLite\n> 2. Postgres";

// One header per language and client, as the client writes it above the quoted notification.
const WROTE_HEADERS: Array<[string, string]> = [
  ["en, Gmail", "On Thu, Dec 3, 2026 at 10:00 AM escalation[bot] <notifications@github.com> wrote:"],
  ["en, Apple Mail", "On Dec 3, 2026, at 10:00, escalation[bot] <notifications@github.com> wrote:"],
  ["de, Gmail", "Am Do., 3. Dez. 2026 um 10:00 Uhr schrieb escalation[bot] <notifications@github.com>:"],
  ["de, Apple Mail", "Am 03.12.2026 um 10:00 schrieb escalation[bot] <notifications@github.com>:"],
  ["de, name first", "escalation[bot] <notifications@github.com> schrieb:"],
  ["fr, Gmail (no-break space before the colon)", "Le jeu. 3 déc. 2026 à 10:00, escalation[bot] <notifications@github.com> a écrit\u00A0:"],
  ["fr, Apple Mail", "Le 3 déc. 2026 à 10:00, escalation[bot] <notifications@github.com> a écrit :"],
  ["es, Gmail", "El jue, 3 dic 2026 a las 10:00, escalation[bot] (<notifications@github.com>) escribió:"],
  ["pt, Gmail", "Em qui., 3 de dez. de 2026 às 10:00, escalation[bot] <notifications@github.com> escreveu:"],
  ["it, Gmail", "Il giorno gio 3 dic 2026 alle ore 10:00 escalation[bot] <notifications@github.com> ha scritto:"],
  ["nl, Gmail", "Op do 3 dec 2026 om 10:00 schreef escalation[bot] <notifications@github.com>:"],
  ["nl, Apple Mail", "Op 3 dec. 2026 om 10:00 heeft escalation[bot] <notifications@github.com> het volgende geschreven:"],
  ["ja, Gmail", "2026年12月3日(木) 10:00 escalation[bot] <notifications@github.com>:"],
  ["ja, Apple Mail", "2026/12/03 10:00、escalation[bot] <notifications@github.com>のメール:"],
  ["ja, …に…が書きました", "2026/12/03 10:00 に escalation[bot] が書きました:"],
  ["ja, …さんは書きました", "escalation[bot] さんは書きました:"],
  ["zh, Gmail simplified", "escalation[bot] <notifications@github.com> 于2026年12月3日周四 10:00写道："],
  ["zh, Gmail traditional", "escalation[bot] <notifications@github.com> 於 2026年12月3日 週四 上午10:00寫道："],
  ["zh, Foxmail", "在 2026-12-03 10:00，escalation[bot] 写道："],
];

// Outlook's header block per language, with the rule Outlook puts above it.
const OUTLOOK_BLOCKS: Array<[string, string[]]> = [
  [
    "en",
    [
      "From: escalation[bot] <notifications@github.com>",
      "Sent: Thursday, December 3, 2026 10:00 AM",
      "To: me <me@example.com>",
      "Subject: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "de",
    [
      "Von: escalation[bot] <notifications@github.com>",
      "Gesendet: Donnerstag, 3. Dezember 2026 10:00",
      "An: me <me@example.com>",
      "Betreff: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "fr",
    [
      "De : escalation[bot] <notifications@github.com>",
      "Envoyé : jeudi 3 décembre 2026 10:00",
      "À : me <me@example.com>",
      "Objet : Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "es",
    [
      "De: escalation[bot] <notifications@github.com>",
      "Enviado: jueves, 3 de diciembre de 2026 10:00",
      "Para: me <me@example.com>",
      "Asunto: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "pt",
    [
      "De: escalation[bot] <notifications@github.com>",
      "Enviada em: quinta-feira, 3 de dezembro de 2026 10:00",
      "Para: me <me@example.com>",
      "Assunto: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "it",
    [
      "Da: escalation[bot] <notifications@github.com>",
      "Inviato: giovedì 3 dicembre 2026 10:00",
      "A: me <me@example.com>",
      "Oggetto: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "nl",
    [
      "Van: escalation[bot] <notifications@github.com>",
      "Verzonden: donderdag 3 december 2026 10:00",
      "Aan: me <me@example.com>",
      "Onderwerp: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "zh simplified",
    [
      "发件人: escalation[bot] <notifications@github.com>",
      "发送时间: 2026年12月3日 10:00",
      "收件人: me <me@example.com>",
      "主题: Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "zh traditional, full-width colons",
    [
      "寄件者： escalation[bot] <notifications@github.com>",
      "寄件日期： 2026年12月3日 10:00",
      "收件者： me <me@example.com>",
      "主旨： Re: [o/r] Pick a database (#1)",
    ],
  ],
  [
    "ja",
    [
      "差出人: escalation[bot] <notifications@github.com>",
      "送信日時: 2026年12月3日 10:00",
      "宛先: me <me@example.com>",
      "件名: Re: [o/r] Pick a database (#1)",
    ],
  ],
  ["en, bold (HTML mail)", ["**From:** escalation[bot] <notifications@github.com>", "**Sent:** Thursday", "**To:** me", "**Subject:** Re: x"]],
  ["de, bold (HTML mail)", ["**Von:** escalation[bot] <notifications@github.com>", "**Gesendet:** Donnerstag", "**An:** me", "**Betreff:** Re: x"]],
];

const ORIGINAL_MESSAGE_RULES = [
  "-----Original Message-----",
  "-----Ursprüngliche Nachricht-----",
  "-----Message d'origine-----",
  "-----Mensaje original-----",
  "-----Mensagem original-----",
  "-----Messaggio originale-----",
  "-----Oorspronkelijk bericht-----",
  "-----原始邮件-----",
  "-----元のメッセージ-----",
];

describe("e-mail reply headers", () => {
  it("the table covers the languages GitHub users write", () => {
    expect(Object.keys(MAIL_LANGUAGES).sort()).toEqual(["de", "en", "es", "fr", "it", "ja", "nl", "pt", "zh"]);
  });

  describe.each(WROTE_HEADERS)("'wrote:' header, %s", (_name, header) => {
    it("is recognised", () => {
      expect(isWroteHeader(header)).toBe(true);
    });

    it("is removed with the quoted tail, and the answer is not its note", () => {
      const body = `2\n\n${header}\n\n${quote}`;
      expect(visibleReplyText(body)).toBe("2");
      const [answer] = parseReply(body, [{ text: "Which database?", options: ["SQLite", "Postgres"] }]).answers;
      expect(answer).toEqual({ question: 0, text: "2", option: "Postgres", optionIndex: 1 });
    });

    it("is removed when the mail client wrapped it over two lines", () => {
      const cut = header.lastIndexOf(" ");
      const wrapped = `${header.slice(0, cut)}\n${header.slice(cut + 1)}`;
      expect(visibleReplyText(`SQLite\n\n${wrapped}\n\n${quote}`)).toBe("SQLite");
    });

    it("is removed with the unquoted copy GitHub's e-mail sometimes carries", () => {
      expect(visibleReplyText(`SQLite, keep it small\r\n\r\n${header}\r\n\r\nWhich database?\r\n\r\n—\r\nReply to this email directly`)).toBe(
        "SQLite, keep it small",
      );
    });
  });

  describe.each(OUTLOOK_BLOCKS)("Outlook header block, %s", (_name, block) => {
    it("its fields are recognised", () => {
      expect(isOutlookFromField(block[0]!)).toBe(true);
      for (const line of block.slice(1)) expect(isOutlookField(line)).toBe(true);
    });

    it("is removed with what follows, the rule above it included", () => {
      expect(visibleReplyText(`Go with SQLite\n\n________________________________\n${block.join("\n")}\n\nWhich database?`)).toBe("Go with SQLite");
      expect(visibleReplyText(`Postgres\n\n${block.join("\n")}\n\nWhich database?`)).toBe("Postgres");
    });
  });

  it.each(ORIGINAL_MESSAGE_RULES)("%s starts the tail", (rule) => {
    expect(isOriginalMessageRule(rule)).toBe(true);
    expect(visibleReplyText(`2\n\n${rule}\nFrom: x\n\nWhich database?`)).toBe("2");
  });

  it.each([
    ["a sender field without fields after it", "Von: der Konfiguration\nnicht aus der Umgebung"],
    ["prose starting with 'Am'", "Am besten SQLite."],
    ["prose starting with 'Le'", "Le plus simple: SQLite"],
    ["prose starting with 'Op'", "Op zich prima: Postgres"],
    ["a Japanese answer", "SQLiteでお願いします。"],
    ["a Chinese answer", "用 SQLite 就行。"],
  ])("%s is an answer, not a header", (_name, body) => {
    expect(visibleReplyText(body)).toBe(body);
  });

  it("a header line is found where it starts, not on the answer line above it", () => {
    expect(startsWroteHeader("Postgres", "escalation[bot] <notifications@github.com> 于2026年12月3日周四 10:00写道：")).toBe(false);
    expect(visibleReplyText("Postgres\nescalation[bot] <notifications@github.com> 于2026年12月3日周四 10:00写道：\n> Which?")).toBe("Postgres");
  });
});
