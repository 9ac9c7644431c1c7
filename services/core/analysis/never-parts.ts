// Words kept out of the splitter's lexicon (the committed list and the hunspell supplement).
// Kept out of the lexicon because as pieces of longer words they are almost
// always something else: derivational suffixes (Eigen-schaft), prepositions
// and particles (Unter-nehmen), and rare or foreign short nouns that turn up
// inside ordinary words (Regi-ster, Buch-stab-e, Mini-ster, Best-ehen).
export const NEVER_PARTS: ReadonlySet<string> = new Set([
  'schaft', 'lein', 'chen', 'ling', 'tum', 'heit', 'keit', 'ung', 'nis', 'ion', 'ionen', 'tion', 'ei', 'erei',
  'ab', 'an', 'auf', 'aus', 'bei', 'durch', 'ein', 'für', 'gegen', 'her', 'hin', 'hinter', 'mit', 'nach',
  'neben', 'ober', 'über', 'um', 'unter', 'von', 'vor', 'wider', 'zu', 'zwischen', 'fort', 'los',
  'the', 'and', 'man', 'ten', 'ster', 'tab', 'lag', 'gros', 'mini', 'reih', 'eigen', 'best', 'erst',
  'hard', 'elle', 'ter', 'ren', 'hau', 'ische', 'männe', 'spezi', 'nike', 'assi', 'stent', 'papi', 'navi', 'ern', 'tung', 'nachen', 'rinne', 'rinnen',
]);
