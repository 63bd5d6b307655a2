import { describe, expect, it } from "vitest";
import { type LaterStatementRow, laterStatementsOf } from "./later-statements.js";
import { splitQuestion } from "./question-clauses.js";
import { PLAIN_READING, saysSomethingOfSpeaker, statesSomething } from "./speaker-statements.js";

/** Questions read for what they state of their speaker (CONTEXT_QUESTION_STATEMENTS). */
const QUESTIONS = { inQuestions: true };

describe("turns that state something", () => {
  it("reads a statement of the speaker in the first person, not a question", () => {
    expect(saysSomethingOfSpeaker("Our canoe has a crack in the hull.")).toBe(true);
    expect(saysSomethingOfSpeaker("Should we patch the canoe ourselves?")).toBe(false);
    expect(saysSomethingOfSpeaker("His canoe has a crack in the hull.")).toBe(false);
    // "US" in capitals is the country; "ourselves" is the speaker.
    expect(saysSomethingOfSpeaker("The US embassy moved to a new building last spring.")).toBe(false);
    expect(saysSomethingOfSpeaker("THE COUNCIL MOVED US TO A NEW FLAT.")).toBe(true);
    expect(saysSomethingOfSpeaker("The garden is all down to ourselves now.")).toBe(true);
  });

  it("reads a statement of the speaker said without a subject: a past form, a gerund or 'been' opening a clause", () => {
    expect(saysSomethingOfSpeaker("Traded the hatchback for a cargo bike over the winter.")).toBe(true);
    expect(saysSomethingOfSpeaker("Sleeping in the spare room while the loft is rebuilt.")).toBe(true);
    expect(saysSomethingOfSpeaker("Been coaching the under-nines on Saturday mornings.")).toBe(true);
    expect(saysSomethingOfSpeaker("Finally flew home for the wedding, shattered.")).toBe(true);
    expect(saysSomethingOfSpeaker("Rain all week; repotted the ferns instead.")).toBe(true);
    // Irregular past forms come from the tagger's lexicon and conjugations, not a list of ours.
    expect(saysSomethingOfSpeaker("Drove the van up to the coast on Friday.")).toBe(true);
    expect(saysSomethingOfSpeaker("Moved back.")).toBe(true);
    expect(saysSomethingOfSpeaker("Flew to Accra in March, the humidity is something else.")).toBe(true);
  });

  it("reads no subjectless statement in a request, a question, a gerund subject or an aside", () => {
    expect(saysSomethingOfSpeaker("Draft a reply to the landlord.")).toBe(false);
    expect(saysSomethingOfSpeaker("Drawing on the notes above, draft a reply to the landlord.")).toBe(false);
    expect(saysSomethingOfSpeaker("Was trading the hatchback for a cargo bike wise?")).toBe(false);
    expect(saysSomethingOfSpeaker("Coaching small children takes endless patience.")).toBe(false);
    expect(saysSomethingOfSpeaker("Enclosed is the signed lease.")).toBe(false);
    expect(saysSomethingOfSpeaker("Understood, send the lease over.")).toBe(false);
    expect(saysSomethingOfSpeaker("Got it, cheers.")).toBe(false);
    expect(saysSomethingOfSpeaker("Attached below is the signed lease.")).toBe(false);
    // A word the lexicon knows as a past form, read by the tagger as a noun here.
    expect(saysSomethingOfSpeaker("Rose bushes line the drive.")).toBe(false);
  });

  it("reads a statement of the speaker said on the way to a question, when questions are read", () => {
    // Off by default: a question states nothing (a clause before it, or its reason after a comma, does: below).
    expect(saysSomethingOfSpeaker("Which bus goes to town now that my bike has been stolen?")).toBe(false);
    expect(statesSomething("Which bus goes to town now that my bike has been stolen?")).toBe(false);
    expect(saysSomethingOfSpeaker("My kettle leaks at the base, is it worth fixing?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("Now that we have sold the car, how do we get around?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("Which bus goes to town now that my bike has been stolen?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("I've taught piano for a decade, so how do I raise my rates?", QUESTIONS)).toBe(true);
    expect(statesSomething("Since our daughter is starting nursery, what should she bring?", QUESTIONS)).toBe(true);
    // Negations, "been" with a gerund, "can" and "will" state; a verb the tagger reads as a noun after "I".
    expect(saysSomethingOfSpeaker("I haven't ridden a horse since school, is it like riding a bike?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("I've been waking at five every day, is that normal?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("I can't eat gluten, which pasta should I buy?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("I referee hockey matches, which whistle is loudest?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("My 12-year-old nephew collects fossils, where could we go hunting?", QUESTIONS)).toBe(true);
    expect(saysSomethingOfSpeaker("user: We're repainting the hallway, is satin or matt better?", QUESTIONS)).toBe(true);
  });

  it("reads no statement of the speaker in a question that asks about them, supposes or weighs a choice", () => {
    // Inverted after an auxiliary or a wh-word: asked about, not stated.
    expect(saysSomethingOfSpeaker("Should we sell the car?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("Why do I wake up at four every night?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("How often should my gutters be cleared?", QUESTIONS)).toBe(false);
    // Supposed, not stated.
    expect(saysSomethingOfSpeaker("What happens to the deposit if we leave early?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("How can I tell whether my tomatoes are ripe?", QUESTIONS)).toBe(false);
    // A modal weighs a choice; a possessive with no verb of its own states nothing.
    expect(saysSomethingOfSpeaker("Do you think I should retrain as a nurse?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("Any ideas for my balcony?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("Can you help me plan my week?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("We might emigrate to Chile, which documents are needed?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("I'd love to learn the cello, where should I begin?", QUESTIONS)).toBe(false);
    // An embedded question is asked, not stated.
    expect(saysSomethingOfSpeaker("I was wondering whether you could proofread this letter?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("I'm curious which planet is the windiest?", QUESTIONS)).toBe(false);
    // "my" in a phrase after a preposition, or two subjects joined after an auxiliary.
    expect(saysSomethingOfSpeaker("When does the ferry to our island run in winter?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("Regarding my tax code, is it right?", QUESTIONS)).toBe(false);
    expect(saysSomethingOfSpeaker("Can my sister and I share one railcard?", QUESTIONS)).toBe(false);
  });

  it("keeps the speaker's own words before a colon, and takes off a speaker's name", () => {
    expect(saysSomethingOfSpeaker("My verdict: the blue tent wins.")).toBe(true);
    expect(statesSomething("Kofi Mensah: Which tent is lightest?")).toBe(false);
  });

  it("reads a subjectless statement after several adverbs, in a list item or a quotation", () => {
    expect(saysSomethingOfSpeaker("Also just booked the ferry for June.")).toBe(true);
    expect(saysSomethingOfSpeaker("Packing list:\n- Booked the ferry for June.")).toBe(true);
    expect(saysSomethingOfSpeaker('"Booked the ferry for June," as Kofi told Ama.')).toBe(true);
  });

  it("reads that a turn states something of anyone or anything, not a question, a request or an acknowledgement", () => {
    expect(statesSomething("His canoe has a crack in the hull.")).toBe(true);
    expect(statesSomething("Kofi sold the canoe in May.")).toBe(true);
    expect(statesSomething("The canoe went to a rowing club in May.")).toBe(true);
    expect(statesSomething("Patched the canoe with fibreglass.")).toBe(true);
    expect(statesSomething("Okay, so the canoe is staying in the barn.")).toBe(true);
    // "has" after a noun the tagger reads as an adjective, which it then calls a noun: still the verb.
    expect(statesSomething("The left wing has a library.")).toBe(true);
    expect(statesSomething("Would she like a lighter paddle?")).toBe(false);
    expect(statesSomething("Describe the best canoe for a lake.")).toBe(false);
    expect(statesSomething("Okay, now list three lighter paddles.")).toBe(false);
    expect(statesSomething("Please compare the two canoes.")).toBe(false);
    expect(statesSomething("Sounds good.")).toBe(false);
    // Asked without a question mark, or a request after a phrase: no statement either.
    expect(statesSomething("which paddle suits a beginner best")).toBe(false);
    expect(statesSomething("could you list three lakes near Kumasi")).toBe(false);
    expect(statesSomething("is there a ferry to the island on Sundays")).toBe(false);
    expect(statesSomething("Using the map above, mark the portages.")).toBe(false);
    // A stored turn's role before it is not its subject.
    expect(statesSomething("user: List three lakes near Kumasi.")).toBe(false);
  });

  it("reads no statement in talk about the talk: formulae, exclamations, a subject that points back", () => {
    expect(statesSomething("Ama: Thanks, Kofi, the paddles arrived.")).toBe(false);
    expect(statesSomething("Wow, what a sunset over the lake!")).toBe(false);
    expect(statesSomething("It means the world to hear that.")).toBe(false);
    expect(statesSomething("That's a lovely way to spend a Sunday.")).toBe(false);
    expect(statesSomething("You clearly know your knots.")).toBe(false);
    expect(statesSomething("That sounds like a lovely paddle.")).toBe(false);
    expect(statesSomething("Kwame, that sounds amazing!")).toBe(false);
    expect(statesSomething("Sounds great, cheers!")).toBe(false);
    expect(statesSomething("Got it, cheers.")).toBe(false);
    // A speaker's name before the turn is not its subject; a named or gendered subject is one.
    expect(statesSomething("Ama: The canoe club moved to the reservoir.")).toBe(true);
    expect(statesSomething("Her paddle snapped on the weir!")).toBe(true);
    expect(statesSomething("Their canoe sank off the point in May!")).toBe(true);
    // A colon after a clause of its own is no speaker's name.
    expect(statesSomething("Ama sold the old canoe: a relief.")).toBe(true);
    // A clause before the comma, or a wh-word opening one, leaves the statement after it one.
    expect(statesSomething("The canoe sank in May, believe it or not.")).toBe(true);
    expect(statesSomething("When the lease ended, Kofi moved to Accra.")).toBe(true);
    // No verb with a tense: an exclamation, not a statement.
    expect(statesSomething("Lucky you to have such a calm lake nearby.")).toBe(false);
  });

  it("reads a sentence typed without its capital as a sentence of its own", () => {
    // Without the break the turn is one sentence ending in a question mark, which states nothing.
    expect(saysSomethingOfSpeaker("my canoe sprang a leak on sunday. is fibreglass tape enough?")).toBe(true);
    expect(saysSomethingOfSpeaker("Joined the rowing club in Tema last spring. any tips for a first regatta?")).toBe(true);
    expect(statesSomething("The club moved the boats to the new shed at 6pm. where do the oars go?")).toBe(true);
    expect(saysSomethingOfSpeaker("Is the lake warm enough in May? or still too cold?")).toBe(false);
    // A word with a stop inside, one letter before the stop, or an abbreviation ends no sentence.
    expect(saysSomethingOfSpeaker("Which paddle, e.g. a carbon one, would you pick for me? thanks")).toBe(false);
    expect(saysSomethingOfSpeaker("Should the hull of a canoe, i.e. the bottom, be sanded? no rush")).toBe(false);
    expect(saysSomethingOfSpeaker("Can I carry approx. four litres of water in the canoe?")).toBe(false);
    expect(saysSomethingOfSpeaker("Do we need a licence for a canoe vs. a kayak on the canal?")).toBe(false);
    expect(saysSomethingOfSpeaker("Should I pack rope, tape etc. or just a pump?")).toBe(false);
    expect(saysSomethingOfSpeaker("Can I check the no. of locks on my route?")).toBe(false);
  });

  it("reads the clause before a comma that opens a question as a sentence of its own", () => {
    // As if typed with a full stop: "The greenhouse glass cracked in the frost. Can it be patched?"
    expect(statesSomething("The greenhouse glass cracked in the frost, can it be patched?")).toBe(true);
    expect(saysSomethingOfSpeaker("Swapped my road bike for a gravel bike, which tyres suit it?")).toBe(true);
    expect(saysSomethingOfSpeaker("okay so we adopted a greyhound, any advice on walks?")).toBe(true);
    expect(saysSomethingOfSpeaker("I'm coeliac, what can I order at a ramen bar?")).toBe(true);
    // A clause that supposes, asks itself, weighs a choice or has no verb with a tense states nothing.
    expect(saysSomethingOfSpeaker("If I quit the choir, will they refund my fees?")).toBe(false);
    expect(saysSomethingOfSpeaker("Even if we rent out the loft, do we pay more tax?")).toBe(false);
    expect(saysSomethingOfSpeaker("In case I lose my passport abroad, who do I call?")).toBe(false);
    expect(saysSomethingOfSpeaker("Once I finish the course, what jobs open up?")).toBe(false);
    expect(saysSomethingOfSpeaker("Should I repaint my shed, or is staining enough?")).toBe(false);
    expect(saysSomethingOfSpeaker("We could rent a narrow flat near the park, would that suit a cat?")).toBe(false);
    expect(saysSomethingOfSpeaker("Regarding my pension, can it be moved abroad?")).toBe(false);
    // A clause ending on a word of asking takes the question as its complement.
    expect(saysSomethingOfSpeaker("I was wondering, could you help me pick a title for my podcast?")).toBe(false);
    expect(saysSomethingOfSpeaker("I'm just curious, how far is the moon from my town?")).toBe(false);
    expect(saysSomethingOfSpeaker("I have a question, do my pot plants need feeding in winter?")).toBe(false);
    expect(saysSomethingOfSpeaker("I'm not sure, is my dog's cough serious?")).toBe(false);
    expect(saysSomethingOfSpeaker("I was wondering about something, could you check my maths?")).toBe(false);
    expect(saysSomethingOfSpeaker("I have a question about my tenancy, can the agent keep the fee?")).toBe(false);
    expect(saysSomethingOfSpeaker("I can't decide, should we paint the hall green or grey?")).toBe(false);
    expect(statesSomething("My question is, how long do garden snails live?")).toBe(false);
  });

  it("reads no statement in a clause that supposes after a marker, an adverb or a bullet", () => {
    expect(saysSomethingOfSpeaker("Hey, if I switch to night shifts, will my pay change?")).toBe(false);
    expect(saysSomethingOfSpeaker("Purely hypothetically, if we sold the flat, where would we go?")).toBe(false);
    expect(saysSomethingOfSpeaker("Quick one, if I skip a payment, what happens?")).toBe(false);
    expect(saysSomethingOfSpeaker("• If I drop the course, do I get a refund?")).toBe(false);
    expect(saysSomethingOfSpeaker("Imagine I moved abroad, would my phone plan work?")).toBe(false);
    expect(saysSomethingOfSpeaker("By the time we retire, will the mortgage be paid?")).toBe(false);
    expect(saysSomethingOfSpeaker("Worst case, we lose the deposit, is that legal?")).toBe(false);
  });

  it("reads no statement in a clause about the talk: what was said, a presentation, a formula, a quotation", () => {
    expect(saysSomethingOfSpeaker("You said earlier my plan was fine, was that right?")).toBe(false);
    expect(saysSomethingOfSpeaker("Here's my essay, can you shorten it?")).toBe(false);
    expect(saysSomethingOfSpeaker("Thanks for sorting my CV, could you do the cover letter too?")).toBe(false);
    expect(statesSomething('The card on the door read "back at five", what did it mean?')).toBe(false);
    expect(saysSomethingOfSpeaker("Could you redo the table, as I asked?")).toBe(false);
  });

  it("reads what someone said of the user, and a clause after an interjection, a name in -ly or a past time", () => {
    expect(saysSomethingOfSpeaker("My dentist told me I need a crown, how long does it take?")).toBe(true);
    expect(saysSomethingOfSpeaker("Our twins keep asking for a rabbit, which kind is calmest?")).toBe(true);
    expect(saysSomethingOfSpeaker("Sorry, I missed my train this morning, can I use the ticket later?")).toBe(true);
    expect(statesSomething("Molly is our new puppy, how often should she eat?")).toBe(true);
    expect(saysSomethingOfSpeaker("Given that I'm lactose intolerant, which cheeses are safe?")).toBe(true);
    expect(saysSomethingOfSpeaker("By the time we reached the hotel, our room had gone, is that allowed?")).toBe(true);
    expect(saysSomethingOfSpeaker("When I get back from the trip I booked, can I claim a refund?")).toBe(false);
    expect(statesSomething("Has my parcel been sent yet, and how do I track it?")).toBe(false);
  });

  it("reads a clause headed by thinking or by the listener's advice, which states a plan or a change", () => {
    expect(saysSomethingOfSpeaker("I'm thinking of selling the caravan, any tips on pricing it?")).toBe(true);
    expect(saysSomethingOfSpeaker("I think I left my umbrella on the bus, who should I ring?")).toBe(true);
    expect(saysSomethingOfSpeaker("I took your advice and joined a climbing gym, what shoes should I get?")).toBe(true);
    expect(saysSomethingOfSpeaker("We land at 6:40 on Friday, which bus reaches the centre?")).toBe(true);
  });

  it("reads no statement in a clause that asks itself or is a single word", () => {
    expect(statesSomething("Have there been any storms in Cork this week, and is the ferry running?")).toBe(false);
    expect(statesSomething("In what ways did the canal shape the town, and who paid for it?")).toBe(false);
    expect(statesSomething("Like, are the lessons weekly?")).toBe(false);
  });

  it("reads a clause of time as supposing in the present tense and as stating in the past", () => {
    expect(saysSomethingOfSpeaker("After I move to Porto, do I need a new licence?")).toBe(false);
    expect(saysSomethingOfSpeaker("After I've finished the course, can I apply for a grant?")).toBe(false);
    expect(saysSomethingOfSpeaker("While I was in Lisbon, my phone was stolen, what should I do?")).toBe(true);
    expect(saysSomethingOfSpeaker("When we lived in Hull, our rent was lower, why has it doubled?")).toBe(true);
  });

  it("reads a clause before a negative question, and a reason after a question opened by a marker", () => {
    expect(saysSomethingOfSpeaker("My bike is seven years old, isn't it time for a new one?")).toBe(true);
    expect(saysSomethingOfSpeaker("Hi, which ferry goes to the island, now that our boat has been sold?")).toBe(true);
  });

  it("reads the reason a question gives after a comma as a sentence of its own", () => {
    expect(saysSomethingOfSpeaker("Which trains reach the airport, now that my car has been written off?")).toBe(true);
    expect(saysSomethingOfSpeaker("Which dinghy suits two adults, since we sold the kayak?")).toBe(true);
    expect(statesSomething("Is a log store worth building, because the old woodshed collapsed in the storm?")).toBe(true);
    // Not a condition, a reason with no verb with a tense, or "as" before no subject.
    expect(saysSomethingOfSpeaker("Can I sublet the flat, as long as I pay the rent?")).toBe(false);
    expect(statesSomething("Which is better, since both are cheap?")).toBe(false);
    expect(statesSomething("What would you plant, as a gardener?")).toBe(false);
  });

  it("reads the clause before an ellipsis or a dash that opens a question as a sentence of its own", () => {
    expect(
      saysSomethingOfSpeaker("Lena took over as my team lead on Monday and books calls at 7:45... how do I ask her to move them?"),
    ).toBe(true);
    expect(saysSomethingOfSpeaker("We moved to Leeds in June… which surgery should we register with?")).toBe(true);
    expect(saysSomethingOfSpeaker("We moved to Leeds in June -- which surgery should we register with?")).toBe(true);
    expect(saysSomethingOfSpeaker("We swapped the hatchback for an electric van - what charger should we fit at home?")).toBe(true);
    expect(saysSomethingOfSpeaker("I sold the kayak – which canoe would suit two adults?")).toBe(true);
    expect(saysSomethingOfSpeaker("I sold the kayak—which canoe would suit two adults?")).toBe(true);
    // Preambles, asides and conditions before a dash state nothing, as before a comma.
    expect(statesSomething("Last thing - is the ferry running on Sundays?")).toBe(false);
    expect(statesSomething("I'm curious - how do glaciers move?")).toBe(false);
    expect(statesSomething("Anyway, back to the allotment - what should I sow in March?")).toBe(false);
    expect(statesSomething("hmm... can you make it shorter?")).toBe(false);
    expect(saysSomethingOfSpeaker("If I move to Oslo - will my bank card work?")).toBe(false);
  });

  it("reads past an aside between dashes, and a condition or an interjection between them as between commas", () => {
    expect(saysSomethingOfSpeaker("My brother—who is a chef—sold his van, what should I buy?")).toBe(true);
    expect(statesSomething("My landlord - who is eighty - sold the flat, can he evict me?")).toBe(true);
    expect(saysSomethingOfSpeaker("Our lease ends in May – if we move out early – can we sublet?")).toBe(false);
    expect(saysSomethingOfSpeaker("Sorry - I missed my train - can I use the ticket later?")).toBe(true);
  });

  it("reads no clause break in a hyphenated word, a range of numbers or a dash before a number", () => {
    // Split at the hyphen, "Our plumber has the know" would end on a word of knowing and state nothing.
    expect(statesSomething("Our plumber has the know-how, can he fit a heat pump?")).toBe(true);
    expect(splitQuestion("We rented the cottage 2019–2020 — did that count as residence?")).toEqual([
      "We rented the cottage 2019–2020",
      "did that count as residence?",
    ]);
    expect(splitQuestion("My shift runs 9 -- 5 -- what should I eat?")).toEqual(["My shift runs 9 -- 5", "what should I eat?"]);
  });

  it("reads only the first clause breaks of a long question for the clause before it", () => {
    // A pasted list of commas costs no more than a short question: the statement after the list is not read.
    const list = Array.from({ length: 12 }, (_, index) => `item ${index}`).join(", ");
    expect(statesSomething(`The van is packed with ${list}, is anything missing?`)).toBe(false);
    expect(statesSomething("The van is packed with a tent, a stove, is anything missing?")).toBe(true);
  });

  it("reads each coordinated clause of a sentence as a statement of its own", () => {
    // The first clause points back; the one after ", and", ", but", ", so" or ";" names its subject.
    expect(statesSomething("It rained all week, and the canoe trailer is rusting in the yard.")).toBe(true);
    expect(statesSomething("They sorted the permits at last, so the canoe club opens on Friday.")).toBe(true);
    expect(statesSomething("That took ages; the new paddles finally came.")).toBe(true);
    expect(statesSomething("It looked fine at first, but the hull leaks near the bow.")).toBe(true);
    // A clause that shares the first one's subject opens on its verb; one that points back names none.
    expect(statesSomething("It was cold, and it rained.")).toBe(false);
    expect(statesSomething("That sounds lovely, and it suits a beginner.")).toBe(false);
    expect(statesSomething("You paddle well, but you lean too far.")).toBe(false);
  });

  const row = (id: string, content: string, similarity: number, names: string[] | null = null): LaterStatementRow => ({
    statement_id: "s",
    id,
    content,
    valid_at: "2025-05-01T00:00:00Z",
    similarity,
    names,
    sources: null,
  });

  it("keeps a later turn naming whom the statement named over a nearer one that does not", () => {
    const later = laterStatementsOf(
      [row("near", "We bought a second canoe for the lake.", 0.8), row("named", "Kofi sold the canoe in May.", 0.5, ["Kofi"])],
      2,
      PLAIN_READING,
    );
    expect(later.get("s")?.map((statement) => statement.memoryId)).toEqual(["named", "near"]);
  });

  it("keeps a later turn about her over a nearer question about her", () => {
    const later = laterStatementsOf(
      [row("asks", "Is her paddle too heavy for a ten-year-old?", 0.7), row("says", "She joined the rowing club at the lake in May.", 0.6)],
      1,
      PLAIN_READING,
    );
    expect(later.get("s")?.map((statement) => statement.memoryId)).toEqual(["says"]);
  });

  it("keeps the nearest later turn that states its change in a clause after one that points back", () => {
    const later = laterStatementsOf(
      [
        row("coordinated", "They finished the works in spring, and the canoe club meets at the new pontoon now.", 0.7),
        row("farther", "Kofi paddled to the island on Sunday.", 0.5),
      ],
      1,
      PLAIN_READING,
    );
    expect(later.get("s")?.map((statement) => statement.memoryId)).toEqual(["coordinated"]);
  });
});
