// The fixed topic taxonomy (German labels). A document carries at most one of them; the
// `topic` filter of every search surface takes these labels. Changing a label re-labels nothing
// already stored, so labels are only ever added.

export const TOPICS = [
  { label: 'Politik', description: 'Wahlen, Parlamente, Parteien, Regierung, Kommunalpolitik' },
  { label: 'Recht', description: 'Gesetze, Verordnungen, Urteile, Verträge, Satzungen' },
  { label: 'Wirtschaft', description: 'Unternehmen, Handel, Arbeit, Steuern, Finanzen' },
  { label: 'Verkehr', description: 'Straßen, Bahn, Radverkehr, ÖPNV, Mobilität' },
  { label: 'Umwelt', description: 'Klima, Natur, Energie, Abfall, Wasser' },
  { label: 'Gesundheit', description: 'Medizin, Pflege, Krankheiten, Ernährung' },
  { label: 'Bildung', description: 'Schulen, Hochschulen, Weiterbildung, Bibliotheken' },
  { label: 'Wissenschaft', description: 'Forschung, Studien, Naturwissenschaften' },
  { label: 'Technik', description: 'Software, Computer, Internet, Handbücher, Geräte' },
  { label: 'Kultur', description: 'Kunst, Musik, Literatur, Theater, Geschichte' },
  { label: 'Sport', description: 'Vereine, Wettkämpfe, Training' },
  { label: 'Freizeit', description: 'Reisen, Feste, Hobbys, Ausflüge' },
  { label: 'Verbraucher', description: 'Verbraucherschutz, Preise, Tarife, Ratgeber' },
] as const;

export type TopicLabel = (typeof TOPICS)[number]['label'];

export const TOPIC_LABELS: readonly string[] = TOPICS.map((topic) => topic.label);

/** The label as stored, for a label written in any case; null when it is not in the taxonomy. */
export function canonicalTopic(value: string): TopicLabel | null {
  const wanted = value.trim().toLowerCase();
  return (TOPICS.find((topic) => topic.label.toLowerCase() === wanted)?.label as TopicLabel | undefined) ?? null;
}
