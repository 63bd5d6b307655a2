import { objectPhrase, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";

/** Medicines by name or by kind that people say they are on: "sertraline", "the pill", "statins", "an inhaler". */
const MEDICINES =
  /^(?:the pill|the mini pill|hrt|insulin|metformin|aspirin|ibuprofen|paracetamol|tylenol|advil|prozac|zoloft|lexapro|wellbutrin|adderall|ritalin|lithium|melatonin|warfarin|antidepressants?|antibiotics?|statins?|steroids?|beta blockers?|blood thinners?|blood pressure (?:pills|tablets|meds|medication)|an? inhaler|inhalers?|(?:my |some |the )?(?:meds|medication|tablets|pills))$/i;
/** Endings of generic drug names: sertraline, atorvastatin, lisinopril, omeprazole, amoxicillin, levothyroxine. */
const DRUG_ENDING =
  /^[a-z]{4,}(?:ine|pril|statin|azole|cillin|mycin|oxetine|xine|pam|pram|lam|olol|sartan|done|codone|profen|triptan|parin|tidine|lukast|mab|pine|afil)$/i;

/** Whether a phrase names a medicine rather than a holiday, a train or a diet ("I'm on holiday"). */
const isMedicine = (phrase: string) => MEDICINES.test(phrase) || DRUG_ENDING.test(phrase);

/**
 * Medicines the user takes, and stops: "I'm on sertraline for anxiety", "I take metformin every
 * morning", "I came off the pill", "my GP took me off the statins", "I've weaned myself off
 * the antidepressants". What stopped is written under the same key, so it supersedes the taking.
 */
export const medications: FactRule = (input) => {
  const { text } = input.clause;
  const stopped =
    /\b(?:I (?:have |finally |just )?(?:came|come|got|get|am|went) off|I am no longer on|I am not on(?=.*\b(?:any ?more|these days|now)\b)|I (?:have )?(?:weaned|tapered)(?: myself)? off|I (?:have )?(?:stopped|quit) taking|(?:took|has taken|have taken) me off)\s+(.+)$/i.exec(
      text,
    );
  if (stopped) {
    const medicine = medicinePhrase(stopped[1] as string);
    return medicine ? [medicationFact(input, medicine, `User no longer takes ${medicine}.`, { stopped: true })] : [];
  }
  const taking =
    /\bI (?:am|have been) (?:on|taking)\s+(.+?)(?:\s+for\s+(?:my\s+)?([\p{L}\s-]{3,30}?))?$/iu.exec(text) ??
    /\bI take\s+(.+?)(?:\s+for\s+(?:my\s+)?([\p{L}\s-]{3,30}?))?$/iu.exec(text);
  const medicine = taking ? medicinePhrase(taking[1] as string) : null;
  if (!taking || !medicine) return [];
  const condition = taking[2] ? objectPhrase(taking[2]) : null;
  const content = `User takes ${medicine}${condition ? ` for ${condition}` : ""}.`;
  return [medicationFact(input, medicine, content, condition ? { for: condition } : {})];
};

/** The medicine of a phrase, without what follows it: "the sertraline in the spring" → "sertraline". */
function medicinePhrase(raw: string): string | null {
  const words = raw
    .replace(
      /\s+(?:for|in|at|last|this|since|after|every|each|daily|twice|once|a day|with|because|and|but|so|now|again|these days|nowadays|any more|anymore)\b.*$/i,
      "",
    )
    .replace(/[,.;:!?].*$/, "")
    .trim();
  // "my meds" are the user's medication; "the pill" keeps its article, "the sertraline" does not need it.
  const own = words.replace(/^(?:my|some)\s+/i, "");
  if (isMedicine(words)) return (/^(?:my|some)\s/i.test(words) ? "medication" : own).toLowerCase();
  const bare = words.replace(/^(?:the)\s+(?=\S+$)/i, "");
  return isMedicine(bare) ? bare.toLowerCase() : null;
}

function medicationFact(input: RuleInput, medicine: string, content: string, extra: Record<string, unknown>) {
  const name = medicine.replace(/^(?:the|my|some|an?)\s+/i, "");
  return fact(input, { key: `health:medication:${slug(name)}`, value: { medication: name, ...extra }, content });
}
