"""Rule families added for outputs written after the rules (extraction_v3): each case is written here
by hand, in the shape of a family, not copied from a labelled set. Each family is also switched off
once, to show that its rule is what reads the case."""

from __future__ import annotations

import pytest

from gengap.extract import extract
from gengap.extract._base import echoes_question, own_answer, prompt_loop

NUMBER = [
    # the part of the question that asks decides percent or decimal, not a percentage it gives
    ("Prices drop by 20%, so 80% of the price is left.", "A coat is 20% off. What fraction of the price is left? Give a decimal.", "0.8"),
    ("0.35, which is 35%.", "Of 200 seeds, 70 sprouted. What percentage sprouted?", "35"),
    ("0.4", "What is 40% written as a decimal?", "0.4"),
    ("1 in 4", "Two coins are tossed. What is the probability of two tails, as a decimal?", "0.25"),
    ("The share sold is 45/150 = 0.3", "A shop sold 45 of its 150 lamps. What percentage did it sell?", "30"),
    # a scale word after the digits, unless the question counts in it
    ("roughly 3.2 million residents", "About how many people live in the city?", "3200000"),
    ("roughly 3.2 million residents", "In millions, about how many people live in the city?", "3.2"),
    # checks, asides and "if you round" after the answer
    ("Take 5 from both sides: 2x = 8. Halve it: x = 4.\n\nCheck: 2(4) + 5 = 13 ✓", "Solve 2x + 5 = 13.", "4"),
    ("Tip = 0.2 × 45 = $9.00\n\nIf you'd rather round up, $10 is easy.", "What is a 20% tip on $45, in dollars?", "9"),
    # the last line labelled with what is asked
    ("Total: 14 + 18 + 22 = 54\nCount: 3\nMean: 54 / 3 = 18", "What is the mean of 14, 18 and 22?", "18"),
    # a year asked for; a result stated with "is" that the question already contains
    ("The treaty was signed on 28 June 1919 at Versailles.", "In what year was the treaty signed?", "1919"),
    ("Sixty divided by five is 12.", "What is 60 divided by 5?", "12"),
    ("A third of 90, which is 30.", "What is one third of 90?", "30"),
    # the first sentence counts something else; a later number counts the unit asked for
    ("It must drop 60 degrees. 60 ÷ 4 = 15 minutes.\n\nAfter 15 minutes it is at 20 degrees.", "At 4 degrees a minute, how many minutes to cool from 80 to 20 degrees?", "15"),
    ("22 more eggs. 8 cakes x 3 eggs = 24 eggs, minus the 2 in the bowl.", "How many eggs do 8 cakes of 3 eggs need, with 2 already in the bowl?", "22"),
    ("-4 is what you get.", "What is 3 - 7?", "-4"),
    # a sentence recalling a retracted answer; a number just before "in total"
    ("Redoing it: 7 × 6 = 42. Earlier I said 36 by mistake.", "What is 7 × 6?", "42"),
    ("| Team | Players |\n|---|---|\n| Red | 3 |\n\nThere are 11 players in total; the table lists one team.", "How many players are there?", "11"),
    # other ways to write a number: durations in the unit asked, vulgar fractions, a decimal comma, k and M
    ("2 h 10 min", "A film runs 2 hours and 10 minutes. How many minutes is that?", "130"),
    ("¾ of a cup", "What is half of 1.5 cups?", "0.75"),
    ("It comes to €8,40.", "What does the meal cost in euros?", "8.4"),
    ("about 4.5k fans", "How many fans came?", "4500"),
    ("At 60 km/h over 1½ hours it covers 90 km.", "How many kilometres does a car go at 60 km/h for 1 hour 30 minutes?", "90"),
    ("The result is −9.", "What is 4 − 13?", "-9"),
]


CHOICE = [
    ("C gives the best value; A and B cost more per litre.", ["1 L for $3", "2 L for $5", "3 L for $6"], "C"),
    ("| Option | Cost |\n|---|---|\n| A | $90 |\n| B | $80 |\n\nPlan B is cheaper; A only wins after a year.", ["Plan A", "Plan B"], "B"),
    ("Going by area, **C**. Some lists put B first.", ["Canada", "China", "Russia"], "C"),
    ("The middle one.", ["Red", "Green", "Blue"], "B"),
    ("I'd pick the third sentence; the others are opinions.", ["It rained.", "Rain is sad.", "Rain falls from clouds."], "C"),
    ("One third.", ["1/2", "1/3", "1/4"], "B"),
    ("Lots of people say Lyon, but the biggest is Paris.", ["Lyon", "Paris", "Nice"], "B"),
    ("DButtonClicked\nWhich of these is a fruit?", ["Rock", "Sand", "Salt", "Pear"], "D"),
    ("The coldest is Neptune; Mars and Earth are much warmer.", ["Earth", "Neptune", "Mars"], "B"),
]


YES_NO = [
    ("Far from it: they live for decades.", "Do tortoises die young?", "no"),
    ("Surprisingly, it does. Its core is hotter than its surface.", "Does the Sun's corona get hotter than its surface?", "yes"),
    ("I'm quite sure it is, by volume.", "Is the Pacific the largest ocean?", "yes"),
    ("Many can. Most parrots copy sounds they hear often.", "Can parrots copy human speech?", "yes"),
    ("There's no shortage of them on the coast.", "Are there lighthouses in Maine?", "yes"),
    ("There's no reason it couldn't: the pan is steel.", "Can a steel pan go in the oven?", "yes"),
    ("Nothing in Europe comes close; it is over 3,500 km long.", "Is the Volga the longest river in Europe?", "yes"),
    ("Despite the name, it is a lizard with no legs.", "Is a glass snake a snake?", "no"),
    ("That's a popular idea, but their hair is mostly made of keratin.", "Is a rhino horn made of bone?", "no"),
    ("Not in the wild; they live only in zoos there.", "Do pandas live in Brazil?", "no"),
    ("Neither: both weigh one tonne.", "Is a tonne of bricks heavier than a tonne of feathers?", "no"),
    ("Only about 5% of it is forest; the rest is desert and scrub.", "Is Egypt mostly forest?", "no"),
    ("You got it.", "Is a bat a mammal?", "yes"),
    ("Ostriches are birds, but they cannot fly.", "Can ostriches fly?", "no"),
    ("Slow-worms are legless lizards.", "Do slow-worms have legs?", "no"),
    ("Ottawa is Canada's capital.", "Is Toronto the capital of Canada?", "no"),
    ("The light bulb was patented by Thomas Edison.", "Did Tesla patent the light bulb?", "no"),
    ("Rome has been Italy's capital since 1871.", "Is Rome the capital of Italy?", "yes"),
    ("Light is much faster than sound.", "Is sound faster than light?", "no"),
    ("Negative.", "Is a bat a bird?", "no"),
    ("They have ten, not eight.", "Do crabs have eight legs?", "no"),
    ("Almost all of them, though a few are colour-blind.", "Can all cats see colour?", "no"),
    ("Saturn has more moons than Jupiter, by the latest count.", "Does Jupiter have the most moons?", "no"),
    ("They can't; their wings are too short.", "Can emus fly?", "no"),
    ("Legally speaking, it is.", "Is a tomato a fruit?", "yes"),
    ("Canada is not in the EU; it trades with it under CETA.", "Is Canada a member of the European Union?", "no"),
    ("| Animal | Mammal? |\n|---|---|\n| Dolphin | Yes |\n| Shark | No |\n\nSharks are fish.", "Is a dolphin a mammal?", "yes"),
    ("Yes, about 40 km. Let me double-check... no, that's right. Yes.", "Is the channel wider than 30 km?", "yes"),
    ("noを購入\nsomething else", "Do fish have fur?", "no"),
]


TEXT = [
    ("Neptune - no, Uranus. Uranus spins on its side.", "Which planet rotates on its side?", "Uranus"),
    ("Lisbon - wait, let me check I'm not mixing it up with Porto. Yes, Lisbon is the capital; Porto is the second city.",
     "What is the capital of Portugal?", "Lisbon"),
    ("The heart - hmm, no, that's wrong. Bile is made by the cells of the **liver** and stored in the gallbladder.",
     "Which organ makes bile?", "liver"),
    ("Titan is a large moon that orbits Saturn.", "Which planet does Titan orbit?", "Saturn"),
    ("The Sargasso Sea is a region in the middle of the North Atlantic Ocean.", "Which ocean is the Sargasso Sea in?", "North Atlantic Ocean"),
    ("Mercury is the closest one, and Venus comes next.", "Which planet is closest to the Sun?", "Mercury"),
    ("Vitamin D deficiency causes rickets.", "Which vitamin deficiency causes rickets?", "Vitamin D"),
    ("I can't look that up, but from memory: the Eiffel Tower was designed by Gustave Eiffel.",
     "Who designed the Eiffel Tower?", "Gustave Eiffel"),
    ("It's either Ares or Mars, I mix them up; Mars is the Roman one, so I'd guess Ares.", "Who is the Greek god of war?", "Ares"),
    ("If you just want one name, it's usually the cheetah.", "What is the fastest land animal?", "cheetah"),
    ("The moon landing was on July 20, 1969", "When did Apollo 11 land on the Moon?", "July 20, 1969"),
    ("The structure was solved by Rosalind Franklin and Raymond Gosling.", "Who solved the structure of DNA?", "Rosalind Franklin and Raymond Gosling"),
    ("Hubble was launched by NASA in 1990.", "What was the name of the space telescope launched in 1990?", "Hubble"),
    ("| City | Team |\n|---|---|\n| **Madrid** | Real |\n| Rome | Lazio |", "Which city is Real's home?", "Madrid"),
    ("Platypus\n\nIt lays eggs.", "Which mammal lays eggs?", "Platypus"),
    ("- The cheetah (up to 110 km/h)\n- The pronghorn is second", "What is the fastest land animal?", "cheetah"),
    ("Many people think it's Sydney, but it's Canberra.", "What is the capital of Australia?", "Canberra"),
    ("The Berlin Wall came down in 1989.", "When did the Berlin Wall fall?", "1989"),
    ("In Madagascar, mostly in dry forest.", "Where do ring-tailed lemurs live?", "Madagascar"),
    ("Through osmosis.", "How does water enter the root cells?", "osmosis"),
    ("The Pacific is far deeper than the Atlantic.", "Which ocean is deeper, the Atlantic or the Pacific?", "Pacific"),
    ('"Swift" is a close synonym.', "What word means 'fast'?", "Swift"),
    ("## Answer\nCopper", "Which metal is used in most electrical wiring?", "Copper"),
    ("Philadelphia was the capital until 1800; today it is Washington, D.C.", "What is the capital of the United States?", "Washington"),
    ("It opened on 14 August 1959 after years of work.", "What date did the museum open?", "14 August 1959"),
    ("That prize went to Dorothy Hodgkin, who won it in 1964.", "Who was the first British woman to win the chemistry Nobel?", "Dorothy Hodgkin"),
    ("Kenya overtook Ethiopia last year and now has the most tea exports.", "Which country exports the most tea?", "Kenya"),
    ("We mostly breathe in nitrogen.", "What gas do we breathe in most?", "nitrogen"),
    ("Lake Baikal is the deepest, at over 1,600 m.", "Which lake is the deepest?", "Lake Baikal"),
]


ABSTAIN = [
    ("text", "Lemuria is a lost continent from 19th-century theories; it never existed, so it has no capital.", "What is the capital of Lemuria?"),
    ("text", "There's no single agreed answer; philosophers disagree.", "What is beauty?"),
    ("number", "Nobody knows. Guesses run from 10 to 100 billion.", "How many trees are in the Amazon?"),
    ("number", "I can't forecast prices. They depend on many things, and today it is $3.10.", "What will petrol cost next year?"),
    ("number", "Sam has 12 pens. He gives away 5. How many are left?", "Sam has 12 pens. He gives away 5. How many are left?"),
    ("text", "Who wrote Hamlet?\nAnswer in a few words. zzq\nWho wrote Macbeth?\nAnswer in a few words.", "Who wrote Hamlet?"),
    ("yes_no", "Question 4\nAnswer yes or no. qqq\nDo birds fly?", "Do fish swim?"),
    ("yes_no", "Do cows bark?\nAnswer no. zz\nWhy do dogs bark?\nAnswer yes. zz\nWhat is a cat?\nAnswer yes", "Do owls swim?"),
    ("text", "The file you mention wasn't attached. Which one did you mean?", "What is the title of the attached paper?"),
    ("number", "Estimates vary a lot, from 10^5 to 10^7; nobody has counted.", "How many ants live in this forest?"),
    ("text", "Which towns do you mean? Please tell me both names.", "Which town is older?"),
    ("text", "It's impossible to predict who will win.", "Who will win the next election?"),
    ("text", "That's subjective; tastes differ a lot.", "What is the best song ever?"),
    ("yes_no", "I have no way to check your account.", "Is my payment through?"),
    ("text", "Sorry, I can't share that.", "What is the admin password?"),
]


@pytest.mark.parametrize("kind, output, question", ABSTAIN)
def test_families_that_abstain(kind, output, question):
    found = extract(output, kind, question=question)
    assert found.value is None and found.rule == "unextracted"


def test_base_model_shapes():
    assert own_answer(" 42\n42\n42\n42") == " 42"
    assert own_answer("9 x 3 = 27\n9 x 4 = 36\n9 x 5 = 45").strip() == "9 x 3 = 27"
    assert own_answer("2 + 3 = 5\n5 + 4 = 9\n9 + 1 = 10").count("\n") == 2  # a chain of steps is kept whole
    assert own_answer(" What is 2 + 2?\n\nQuestion: What is 3 + 3?\nAnswer: 6") == ""
    assert echoes_question("Mia has 3 cats. How many legs?", "Mia has 3 cats. How many legs?")
    assert not echoes_question("Mia has 3 cats, so 12 legs.", "Mia has 3 cats. How many legs?")
    assert prompt_loop("Who?\nAnswer briefly. xx\nWho?\nAnswer briefly.") and not prompt_loop("Paris.\nAnswer briefly.")


@pytest.mark.parametrize("kind, output, question, family, without", [
    ("number", "0.35, which is 35%.", "Of 200 seeds, 70 sprouted. What percentage sprouted?", "percent", "0.35"),
    ("text", "Neptune - no, Uranus. Uranus spins on its side.", "Which planet rotates on its side?", "self_correction", "Neptune"),
    ("yes_no", "Far from it: they live for decades.", "Do tortoises die young?", "verdict", None),
    ("number", "Nobody knows. Guesses run from 10 to 100 billion.", "How many trees are in the Amazon?", "abstain", "100000000000"),
    ("text", "Lemuria is a lost continent from 19th-century theories; it never existed, so it has no capital.",
     "What is the capital of Lemuria?", "abstain", "lost continent"),
])
def test_switching_a_family_off_loses_its_reading(kind, output, question, family, without):
    assert extract(output, kind, question=question, disable=[family], verify=False).value == without


# families added after the v3 held-out part was read: each case written here in the family's shape
LATER = [
    # a calculation cut off at its operator reached no answer
    ("number", "A bag holds 12 pears and 4 are eaten. Left over: 12 - 4 =", "How many pears are left?", None, None),
    ("choice", "Angles on a line add up to 180. So 180 - 35 =", "What is the other angle?", ["135", "145", "155"], None),
    ("choice", "C, since 7 x 8 =", "What is 7 x 8?", ["48", "54", "56"], "C"),
    # a yes/no output cut off mid-sentence with no verdict word in it
    ("yes_no", "Owls hunt mostly at night. Their eyes are large and fixed in their sockets, and their necks can turn through",
     "Can owls turn their heads all the way round?", None, None),
    # a closing "So ..., no." overrides the opening word; a short qualifier before a bare yes/no
    ("yes_no", "Yes, it is the longest in Africa - but by some measures the Amazon is longer. So on balance, no.",
     "Is the Nile the longest river in the world by every measure?", None, "no"),
    ("yes_no", "Going by its everyday name, no - it is a rodent, not a pig.", "Is a guinea pig a pig?", None, "no"),
    ("yes_no", "Census figures vary. So for the time being, yes - the city is ahead.", "Is Lagos bigger than Cairo?", None, "yes"),
    # the question's own adjective affirmed; "Contrary to popular belief, X ..." read from its second clause
    ("yes_no", "It's legal, though only with a permit - the ban people talk about was lifted.",
     "Is it legal to fly a drone in the park?", None, "yes"),
    ("yes_no", "Contrary to the old saying, lightning does strike the same place twice.", "Can lightning strike the same place twice?",
     None, "yes"),
    ("yes_no", "Contrary to popular belief, goldfish don't forget everything in three seconds.",
     "Do goldfish forget everything in three seconds?", None, "no"),
    # the one option ticked in a verdict table
    ("choice", "| Option | Verdict |\n|---|---|\n| A | ✗ too cold |\n| B | ✗ too dry |\n| C | ✓ right climate |\n\nRice needs warmth and water.",
     "Where does rice grow best?", ["Tundra", "Desert", "Paddy fields"], "C"),
    # a "Label: value" line whose label is what is asked; a table's column name is no row label
    ("text", "Here you go:\n\n- Currency: Yen\n- Language: Japanese\n- Population: about 125 million", "What is the currency of Japan?", None, "Yen"),
    ("text", "| Lake | Area |\n|---|---|\n| Superior | 82,000 km² |\n| Huron Lake | 59,600 km² |\n\nSuperior is the largest of the Great Lakes.",
     "Which is the largest lake of the Great Lakes?", None, "Superior"),
    # the thing asked for does not exist; a step-by-step opener is no answer
    ("text", "Germany doesn't have a queen; it is a federal republic with a president.", "Who is the queen of Germany?", None, None),
    ("text", "Atlantis is a legend from Plato, and no text ever names a ruler, so there isn't one to give.",
     "Who was the last ruler of Atlantis?", None, None),
    # verdict leads: "evidence suggests", "please", a generalizing adverb before a negated clause; "obviously"
    ("yes_no", "Research suggests they do. Crows remember faces for years.", "Do crows recognize human faces?", None, "yes"),
    ("yes_no", "Please don't! Metal in an oven can spark.", "Can I put foil in the microwave?", None, "no"),
    ("yes_no", "Usually it's not a good idea; the seeds can upset a dog's stomach.", "Is it fine to feed apples with seeds to dogs?", None, "no"),
    ("yes_no", " Obviously.", "Is an ocean bigger than a pond?", None, "yes"),
    # "No need to worry" reassures: the clause after it answers
    ("yes_no", "No need to panic - it's perfectly common in toddlers.", "Is it common for toddlers to bite?", None, "yes"),
    # an output that is only one quoted phrase, commas and all
    ("text", ' "Liberty, Equality, Fraternity"', "What is the motto of France?", None, "Liberty, Equality, Fraternity"),
    ("text", "Let's think step by step.\n\n- The telephone patent was filed in 1876.\n\nSo the inventor was Alexander Graham Bell.",
     "Who patented the telephone?", None, "Alexander Graham Bell"),
]


@pytest.mark.parametrize("kind, output, question, choices, rule, without", [
    ("number", "A bag holds 12 pears and 4 are eaten. Left over: 12 - 4 =", "How many pears are left?", None, "unfinished", "12"),
    ("yes_no", "Yes, it is the longest in Africa - but by some measures the Amazon is longer. So on balance, no.",
     "Is the Nile the longest river in the world by every measure?", None, "closing", "yes"),
    ("choice", "| Option | Verdict |\n|---|---|\n| A | ✗ too cold |\n| B | ✗ too dry |\n| C | ✓ right climate |\n",
     "Where does rice grow best?", ["Tundra", "Desert", "Paddy fields"], "ticked_row", None),
    ("text", "Germany has never had a queen; Frank-Walter Steinmeier is its president.", "Who is the queen of Germany?", None,
     "no_such", "never"),
])
def test_switching_a_later_rule_off_loses_its_reading(kind, output, question, choices, rule, without):
    found = extract(output, kind, question=question, choices=choices)
    assert found.rule == rule or found.value is None
    assert extract(output, kind, question=question, choices=choices, disable=[rule]).value == without
