import { analyzeForIndex, analyzeWord } from '../../core/analysis/index.ts';
import type { TopicLabel } from '../../core/topics.ts';

// The built-in, offline topic classifier: characteristic German words per topic of the taxonomy,
// matched on base forms (so "Gesetze", "Gesetzes" and compounds like "Bundesgesetz" all count).
// It abstains unless one topic clearly leads: an unlabelled document is better than a wrong label.

const KEYWORDS: Record<TopicLabel, string[]> = {
  Politik: ['Wahl', 'Bundestag', 'Landtag', 'Partei', 'Regierung', 'Minister', 'Parlament', 'Abgeordnete', 'Koalition', 'Stadtrat', 'Gemeinderat', 'Bürgermeister', 'Opposition', 'Fraktion', 'Kanzler', 'Politik', 'Wahlkreis', 'Kandidat'],
  Recht: ['Gesetz', 'Verordnung', 'Paragraph', 'Absatz', 'Satzung', 'Gericht', 'Urteil', 'Klage', 'Rechtsverordnung', 'Bekanntmachung', 'Inkrafttreten', 'Vorschrift', 'Bundesgesetzblatt', 'Anspruch', 'Haftung', 'Ausfertigungsdatum', 'Vertrag', 'Recht', 'Bußgeld', 'Straftat'],
  Wirtschaft: ['Unternehmen', 'Wirtschaft', 'Markt', 'Umsatz', 'Steuer', 'Handel', 'Betrieb', 'Arbeitgeber', 'Arbeitnehmer', 'Gewerbe', 'Industrie', 'Bank', 'Finanzen', 'Haushalt', 'Investition', 'Export', 'Konjunktur', 'Besoldung', 'Gehalt', 'Lohn'],
  Verkehr: ['Verkehr', 'Straße', 'Bahn', 'Bus', 'Fahrrad', 'Radweg', 'Auto', 'Fahrzeug', 'Bahnhof', 'Haltestelle', 'Autobahn', 'Baustelle', 'Parkplatz', 'Nahverkehr', 'Fahrplan', 'Tempo', 'Kreuzung', 'Verkehrsunfall', 'Führerschein', 'Schiene'],
  Umwelt: ['Umwelt', 'Klima', 'Natur', 'Wald', 'Abfall', 'Müll', 'Wasser', 'Hochwasser', 'Energie', 'Wärmepumpe', 'Solaranlage', 'Emission', 'Naturschutz', 'Artenschutz', 'Recycling', 'Luft', 'Boden', 'Klimaschutz', 'Immission', 'Gewässer'],
  Gesundheit: ['Gesundheit', 'Krankheit', 'Arzt', 'Patient', 'Krankenhaus', 'Pflege', 'Medizin', 'Therapie', 'Impfung', 'Klinik', 'Apotheke', 'Arzneimittel', 'Krankenkasse', 'Infektion', 'Ernährung', 'Behandlung', 'Symptom', 'Vorsorge'],
  Bildung: ['Schule', 'Schüler', 'Lehrer', 'Unterricht', 'Hochschule', 'Studium', 'Student', 'Ausbildung', 'Bibliothek', 'Kita', 'Kindergarten', 'Prüfung', 'Weiterbildung', 'Lernen', 'Semester', 'Abitur', 'Ausbildungsverordnung', 'Lehrgang'],
  Wissenschaft: ['Forschung', 'Wissenschaft', 'Studie', 'Experiment', 'Institut', 'Universität', 'Hypothese', 'Messung', 'Physik', 'Chemie', 'Biologie', 'Mathematik', 'Labor', 'Professor', 'Publikation', 'Theorie', 'Daten'],
  Technik: ['Software', 'Computer', 'Programm', 'Datei', 'Befehl', 'Option', 'Menü', 'Dialog', 'Server', 'Netzwerk', 'Installation', 'Paket', 'Debian', 'Linux', 'Kommandozeile', 'Tabelle', 'Dokument', 'Bild', 'Ebene', 'Werkzeug', 'System', 'Konfiguration', 'Schaltfläche', 'Fenster', 'Internet', 'Browser', 'Digitalisierung', 'Handbuch'],
  Kultur: ['Kultur', 'Museum', 'Theater', 'Konzert', 'Musik', 'Kunst', 'Ausstellung', 'Literatur', 'Buch', 'Autor', 'Lesung', 'Film', 'Chor', 'Orchester', 'Geschichte', 'Denkmal', 'Künstler', 'Noten', 'Partitur'],
  Sport: ['Sport', 'Verein', 'Spiel', 'Mannschaft', 'Training', 'Turnier', 'Meisterschaft', 'Fußball', 'Handball', 'Lauf', 'Schwimmen', 'Trainer', 'Saison', 'Tor', 'Liga', 'Sportplatz', 'Wettkampf'],
  Freizeit: ['Freizeit', 'Ausflug', 'Reise', 'Urlaub', 'Fest', 'Markt', 'Wanderung', 'Veranstaltung', 'Garten', 'Spielplatz', 'Feier', 'Hobby', 'Kochen', 'Rezept', 'Sommerfest', 'Weihnachtsmarkt', 'Tourismus'],
  Verbraucher: ['Verbraucher', 'Preis', 'Tarif', 'Kunde', 'Vertrag', 'Kündigung', 'Rechnung', 'Gebühr', 'Ratgeber', 'Garantie', 'Reklamation', 'Verbraucherschutz', 'Stromtarif', 'Angebot', 'Kosten', 'Widerruf'],
};

const TEXT_LIMIT = 20_000;
const TITLE_WEIGHT = 3;
const MIN_SCORE = 6;
const MIN_LEAD = 1.5; // the best topic must score this many times the second best

/** The keyword bases by length and first character: a word of the stream is compared in place, never cut out. */
type KeywordIndex = Map<number, { base: string; topics: TopicLabel[] }[]>;
let keywordIndex: KeywordIndex | null = null;
/**
 * 1 where some keyword has this length (below GATE_LENGTH) and first character (its low byte): most
 * words of a stream are no keyword, and this answers for them without a Map look-up.
 */
const GATE_LENGTH = 64;
let keywordGate: Uint8Array | null = null;

function gateIndex(length: number, firstChar: number): number {
  return length * 256 + (firstChar & 0xff);
}

function keyOf(length: number, firstChar: number): number {
  return length * 65536 + firstChar;
}

function keywordsByBase(): KeywordIndex {
  if (keywordIndex) return keywordIndex;
  const byBase = new Map<string, TopicLabel[]>();
  for (const [topic, words] of Object.entries(KEYWORDS) as [TopicLabel, string[]][]) {
    for (const word of words) {
      const base = analyzeWord(word).bases[0];
      if (!base) continue;
      const topics = byBase.get(base) ?? [];
      if (!topics.includes(topic)) topics.push(topic);
      byBase.set(base, topics);
    }
  }
  const index: KeywordIndex = new Map();
  for (const [base, topics] of byBase) {
    const key = keyOf(base.length, base.charCodeAt(0));
    const entries = index.get(key) ?? [];
    entries.push({ base, topics });
    index.set(key, entries);
  }
  const gate = new Uint8Array(GATE_LENGTH * 256);
  for (const entries of index.values()) {
    for (const { base } of entries) if (base.length < GATE_LENGTH) gate[gateIndex(base.length, base.charCodeAt(0))] = 1;
  }
  keywordGate = gate;
  keywordIndex = index;
  return index;
}

/**
 * Adds the topics of every base form among the first `limit` characters of a space-separated base
 * stream (the index's `base` column). The words are compared in place: splitting the stream into
 * strings cost more CPU than the rest of the classification (a quarter of a millisecond a record).
 */
function addScores(scores: Map<TopicLabel, number>, bases: string, weight: number, limit = bases.length): void {
  const index = keywordsByBase();
  const gate = keywordGate!;
  const end = Math.min(limit, bases.length);
  for (let start = 0; start <= end; ) {
    let stop = bases.indexOf(' ', start);
    if (stop === -1 || stop > end) stop = end;
    const length = stop - start;
    const first = bases.charCodeAt(start);
    const candidates = length > 0 && (length >= GATE_LENGTH || gate[gateIndex(length, first)] === 1) ? index.get(keyOf(length, first)) : undefined;
    if (candidates) {
      for (const { base, topics } of candidates) {
        if (!bases.startsWith(base, start)) continue;
        for (const topic of topics) scores.set(topic, (scores.get(topic) ?? 0) + weight);
        break;
      }
    }
    start = stop + 1;
  }
}

export interface TopicScores {
  topic: TopicLabel | null;
  scores: Partial<Record<TopicLabel, number>>;
}

/** Scores from the analysed base streams of title and body (already computed for the index). */
export function scoreTopicsOfBases(titleBases: string, bodyBases: string): TopicScores {
  const scores = new Map<TopicLabel, number>();
  addScores(scores, titleBases, TITLE_WEIGHT);
  addScores(scores, bodyBases, 1, TEXT_LIMIT * 2);
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  const confident = best && best[1] >= MIN_SCORE && (!second || best[1] >= second[1] * MIN_LEAD);
  return { topic: confident ? best[0] : null, scores: Object.fromEntries(ranked) };
}

export function scoreTopics(doc: { title: string; text: string }): TopicScores {
  return scoreTopicsOfBases(analyzeForIndex(doc.title).base, analyzeForIndex(doc.text.slice(0, TEXT_LIMIT)).base);
}

export function classifyTopicByKeywords(doc: { title: string; text: string }): TopicLabel | null {
  return scoreTopics(doc).topic;
}
