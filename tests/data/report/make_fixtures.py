"""Write the fixtures of tests/data/report: invented walls and WoTe questions (no real data),
seeded predictions, and the results files of `ocw-hub evaluate --out` on them.

Run with the project's environment: `.venv/bin/python tests/data/report/make_fixtures.py`.
Everything is seeded, so a second run rewrites the same files.

* ocw/dataset/{train,validation,test}.json: 12 test walls (3 seasons) in the release layout,
  with red herrings (Mars, Jupiter...), a clue held by two groups (Vogue, wall a011) and a wall of
  markup-like clues (a012) for the escaping tests;
* wote/{train,validation,test}.json: 8 questions in the raw WoTe layout, one whose answer is
  not in the context;
* predictions/: model-a (3 runs, with fake clue vectors embeddings.npz/json), model-b (1 run),
  randomized-a (2 runs, scored as ocw_randomized), wote (2 runs);
* model-a.json, model-b.json, randomized-a.json, wote-spans.json: the results files.
"""

import json
import random
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent
WALLS = {
    "a001": (
        1,
        1,
        [
            ("Planets", ["Mercury", "Venus", "Saturn", "Uranus"]),
            ("Chocolate bars", ["Mars", "Bounty", "Twix", "Galaxy"]),
            ("Roman gods", ["Jupiter", "Neptune", "Janus", "Apollo"]),
            ("Metals", ["Iron", "Tin", "Lead", "Zinc"]),
        ],
        [1, 1, 0, 1],
        [1, 1, 1, 0],
    ),
    "a002": (
        1,
        2,
        [
            ("Beatles", ["John", "Paul", "George", "Ringo"]),
            ("Popes", ["Pius", "Leo", "Urban", "Gregory"]),
            ("London streets", ["Baker", "Oxford", "Bond", "Downing"]),
            ("Bond actors", ["Connery", "Moore", "Dalton", "Craig"]),
        ],
        [1, 1, 1, 1],
        [1, 0, 1, 1],
    ),
    "a003": (
        1,
        3,
        [
            ("Trees", ["Oak", "Ash", "Elm", "Birch"]),
            ("Colours", ["Olive", "Teal", "Coral", "Amber"]),
            ("Girls' names from plants", ["Hazel", "Holly", "Rowan", "Willow"]),
            ("Gemstones", ["Ruby", "Jade", "Opal", "Pearl"]),
        ],
        [0, 0, 0, 0],
        [1, 1, 0, 1],
    ),
    "a004": (
        1,
        4,
        [
            ("Card games", ["Snap", "Poker", "Bridge", "Rummy"]),
            ("At the dentist", ["Crown", "Filling", "Brace", "Drill"]),
            ("Chess pieces", ["King", "Queen", "Knight", "Bishop"]),
            ("Things with teeth", ["Comb", "Saw", "Zip", "Gear"]),
        ],
        [1, 1, 1, 1],
        [1, 1, 1, 1],
    ),
    "a005": (
        2,
        1,
        [
            ("Note values", ["Crotchet", "Quaver", "Minim", "Breve"]),
            ("Greek letters", ["Alpha", "Beta", "Delta", "Sigma"]),
            ("Rivers", ["Thames", "Severn", "Trent", "Avon"]),
            ("Ford models", ["Fiesta", "Focus", "Puma", "Kuga"]),
        ],
        [1, 1, 1, 1],
        [1, 1, 0, 0],
    ),
    "a006": (
        2,
        2,
        [
            ("Dog breeds", ["Boxer", "Pointer", "Setter", "Beagle"]),
            ("Punctuation", ["Comma", "Colon", "Dash", "Hyphen"]),
            ("Butterflies", ["Admiral", "Peacock", "Monarch", "Brimstone"]),
            ("Rulers", ["Tsar", "Sultan", "Emperor", "Khan"]),
        ],
        [1, 0, 0, 1],
        [1, 1, 1, 1],
    ),
    "a007": (
        2,
        3,
        [
            ("Shakespeare heroines", ["Juliet", "Ophelia", "Portia", "Miranda"]),
            ("Moons of Uranus", ["Titania", "Oberon", "Puck", "Ariel"]),
            ("Detergents", ["Daz", "Persil", "Bold", "Surf"]),
            ("Sea ___", ["Horse", "Lion", "Bass", "Shell"]),
        ],
        [1, 1, 1, 1],
        [0, 1, 1, 1],
    ),
    "a008": (
        2,
        4,
        [
            ("Football nicknames", ["Gunners", "Toffees", "Magpies", "Saints"]),
            ("Birds", ["Robin", "Wren", "Jay", "Crow"]),
            ("Batman villains", ["Joker", "Penguin", "Bane", "Riddler"]),
            ("Chocolate biscuits", ["Club", "Rocky", "Breakaway", "Taxi"]),
        ],
        [1, 1, 0, 0],
        [1, 0, 1, 1],
    ),
    "a009": (
        3,
        1,
        [
            ("___fish", ["Cat", "Sword", "Star", "Jelly"]),
            ("___board", ["Key", "Card", "Surf board", "Dart"]),
            ("Musicals", ["Cats", "Evita", "Grease", "Hair"]),
            ("Simpsons", ["Homer", "Marge", "Bart", "Lisa"]),
        ],
        [1, 1, 1, 1],
        [1, 1, 1, 1],
    ),
    "a010": (
        3,
        2,
        [
            ("Capitals", ["Paris", "Rome", "Oslo", "Lima"]),
            ("Trojans", ["Hector", "Priam", "Aeneas", "Cassandra"]),
            ("Greek heroes", ["Achilles", "Ajax", "Odysseus", "Jason"]),
            ("Cleaning products", ["Flash", "Cif", "Mr Muscle", "Vanish"]),
        ],
        [0, 1, 1, 1],
        [1, 1, 0, 1],
    ),
    "a011": (
        3,
        3,
        [
            ("Magazines", ["Tatler", "Elle", "Glamour", "Vogue"]),
            ("Madonna songs", ["Frozen", "Music", "Holiday", "Vogue"]),
            ("Disney films", ["Bambi", "Dumbo", "Moana", "Tangled"]),
            ("Ice ___", ["Age", "Cream", "Berg", "Pick"]),
        ],
        [1, 0, 1, 1],
        [1, 1, 1, 0],
    ),
    "a012": (
        3,
        4,
        [
            ('<b>Tags</b> & "markup"', ["<script>", "&amp;", "[red]", "{{x}}"]),
            ("Fruits", ["Apple", "Pear", "Plum", "Fig"]),
            ("Vegetables", ["Leek", "Kale", "Okra", "Pea"]),
            ("Herbs", ["Sage", "Dill", "Mint", "Basil"]),
        ],
        [1, 1, 1, 1],
        [1, 1, 1, 1],
    ),
    "t001": (
        1,
        9,
        [
            ("Oceans", ["Atlantic", "Pacific", "Indian", "Arctic"]),
            ("Continents", ["Asia", "Africa", "Europe", "Oceania"]),
            ("Deserts", ["Sahara", "Gobi", "Kalahari", "Namib"]),
            ("Mountains", ["Everest", "K2", "Denali", "Elbrus"]),
        ],
        [1, 1, 1, 1],
        [1, 1, 1, 1],
    ),
    "v001": (
        2,
        9,
        [
            ("Primes", ["Two", "Three", "Five", "Seven"]),
            ("Squares", ["Four", "Nine", "Sixteen", "Twenty-five"]),
            ("Dice games", ["Yahtzee", "Craps", "Farkle", "Bunco"]),
            ("Knots", ["Bowline", "Hitch", "Reef", "Sheepshank"]),
        ],
        [1, 1, 0, 1],
        [1, 1, 1, 1],
    ),
}
SPLITS = {"train": ["t001"], "validation": ["v001"], "test": [f"a{i:03d}" for i in range(1, 13)]}


def wall(wid, season, episode, groups, hg, hc, rng):
    words = [c for _, clues in groups for c in clues]
    rng.shuffle(words)
    return {
        "wall_id": wid,
        "season": season,
        "episode": episode,
        "words": words,
        "gt_connections": [c for c, _ in groups],
        "groups": {
            f"group_{k + 1}": {
                "group_id": f"{wid}_0{k + 1}",
                "gt_words": list(clues),
                "gt_connection": conn,
                "human_performance": {"grouping": hg[k], "connection": hc[k]},
            }
            for k, (conn, clues) in enumerate(groups)
        },
        "overall_human_performance": {"grouping": list(hg), "connections": list(hc)},
    }


def main():
    rng = random.Random(10)
    folder = OUT / "ocw" / "dataset"
    folder.mkdir(parents=True, exist_ok=True)
    everything = []
    for split, ids in SPLITS.items():
        walls = [wall(w, *WALLS[w], rng) for w in ids]
        everything += walls
        seasons = {}
        for w in walls:
            seasons.setdefault(str(w["season"]), 0)
            seasons[str(w["season"])] += 1
        doc = {
            "season_to_walls_map": {
                s: {"num_walls": n, "start_date": None, "end_date": None}
                for s, n in sorted(seasons.items())
            },
            "dataset": walls,
        }
        (folder / f"{split}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


WOTE_TASKS = {
    "pancakes": (
        "cooking",
        {
            "title": "Simple Pancakes",
            "description": "Fluffy pancakes for a weekend breakfast.",
            "ingredients": ["1 cup flour", "1 egg", "1 cup milk", "2 tablespoons butter, melted"],
            "steps": [
                "Whisk the flour, egg and milk together until smooth.",
                "Heat a pan over medium heat and add a little butter.",
                "Pour a ladle of batter and cook for 2 minutes on each side.",
            ],
        },
    ),
    "shelf": (
        "diy",
        {
            "title": "Hang a Shelf",
            "description": "A floating shelf in under an hour.",
            "ingredients": ["drill", "spirit level", "2 wall plugs", "4 screws"],
            "steps": [
                "Mark the height of the shelf with a pencil.",
                "Drill two holes and insert the wall plugs.",
                "Screw the bracket to the wall and check it with the spirit level.",
            ],
        },
    ),
}
WOTE_QUESTIONS = {
    "train": [("pancakes", 0, "How many eggs do I need?", "1 egg", "['factoid']", "")],
    "validation": [
        ("shelf", 0, "What do I mark first?", "the height of the shelf", "['factoid']", "")
    ],
    "test": [
        ("pancakes", 1, "What goes into the batter?", "the flour, egg and milk", "['factoid']", ""),
        (
            "pancakes",
            2,
            "What next?",
            "Heat a pan over medium heat",
            "['navigation']",
            "student: What goes into the batter? | teacher: The flour, egg and milk.",
        ),
        (
            "pancakes",
            3,
            "How long on each side?",
            "2 minutes",
            "['factoid', 'confirmation']",
            "student: What next? | teacher: Heat a pan.",
        ),
        ("pancakes", 4, "Am I done?", "You are done", "['confirmation']", ""),
        ("shelf", 1, "What do I put in the holes?", "wall plugs", "['factoid']", ""),
        (
            "shelf",
            2,
            "How do I check it is straight?",
            "check it with the spirit level",
            "['complex']",
            "student: What do I put in the holes? | teacher: The wall plugs.",
        ),
    ],
}
WOTE_PREDICTIONS = [  # (test question index, prediction): exact, partial, wrong, case-changed
    "The flour, egg and milk",
    "heat a pan",
    "2 minutes on each side",
    "Pour a ladle of batter",
    "WALL PLUGS",
    "check it with the spirit level",
]


def wote_record(task, n, question, answer, qtype, history, split):
    domain, data = WOTE_TASKS[task]
    return {
        "conversation_id": f"Invented-{task}",
        "question": question,
        "domain": domain,
        "document_url": f"https://example.org/{task}",
        "data_split": split,
        "original_answer": answer,
        "history": history,
        "task_data": repr(data),
        "extracted_answer": answer,
        "question_type": qtype,
        "text_question": question,
        "question_id": f"{task}-{n}",
        "intent_question": "ask_question",
        "intent_answer": "answer",
    }


def main_wote():
    folder = OUT / "wote"
    folder.mkdir(parents=True, exist_ok=True)
    for split, items in WOTE_QUESTIONS.items():
        records = [wote_record(*item, split) for item in items]
        (folder / f"{split}.json").write_text(json.dumps(records, indent=1) + "\n")


def predicted_wall(wall, rng, swaps):
    groups = [list(g["gt_words"]) for g in wall["groups"].values()]
    for _ in range(swaps):
        a, b = rng.sample(range(4), 2)
        i, j = rng.randrange(4), rng.randrange(4)
        groups[a][i], groups[b][j] = groups[b][j], groups[a][i]
    for g in groups:
        rng.shuffle(g)
    rng.shuffle(groups)
    connections = [c if rng.random() < 0.5 else c.lower() + "?" for c in wall["gt_connections"]]
    return {
        "wall_id": wall["wall_id"],
        "predicted_groups": groups,
        "predicted_connections": connections,
    }


def main_predictions():
    import numpy as np

    walls = json.loads((OUT / "ocw" / "dataset" / "test.json").read_text())["dataset"]
    root = OUT / "predictions"
    for model, runs, max_swaps in (("model-a", 3, 3), ("model-b", 1, 1), ("randomized-a", 2, 2)):
        folder = root / model
        folder.mkdir(parents=True, exist_ok=True)
        for r in range(runs):
            rng = random.Random(f"{model}-{r}")
            preds = [predicted_wall(w, rng, rng.randint(0, max_swaps)) for w in walls]
            (folder / f"run-{r + 1:02d}.json").write_text(
                json.dumps(preds, indent=1, ensure_ascii=False) + "\n"
            )
    # fake clue vectors of model-a: one centre per gold group, clues near it (seeded)
    rng = np.random.default_rng(0)
    vectors, clues = {}, {}
    for w in walls:
        centres = rng.normal(size=(4, 8))
        label = {}
        for g, group in enumerate(w["groups"].values()):
            for c in group["gt_words"]:
                label.setdefault(c, g)
        vectors[w["wall_id"]] = np.stack(
            [centres[label[c]] + 0.6 * rng.normal(size=8) for c in w["words"]]
        ).astype("float32")
        clues[w["wall_id"]] = w["words"]
    np.savez(root / "model-a" / "embeddings.npz", **vectors)
    (root / "model-a" / "embeddings.json").write_text(
        json.dumps(
            {
                "model": "invented",
                "encoder": "fixture (random vectors near group centres)",
                "clues": clues,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    questions = json.loads((OUT / "wote" / "test.json").read_text())
    wote = root / "wote"
    wote.mkdir(parents=True, exist_ok=True)
    for r, shift in enumerate((0, 1)):
        preds = [
            {
                "id": f"{q['conversation_id']}/{q['question_id']}",
                "prediction_text": WOTE_PREDICTIONS[(i + shift) % len(WOTE_PREDICTIONS)]
                if r
                else WOTE_PREDICTIONS[i],
            }
            for i, q in enumerate(questions)
        ]
        (wote / f"run-{r + 1:02d}.json").write_text(json.dumps(preds, indent=1) + "\n")


RESULTS = (  # (results file, predictions, config, data folder)
    ("model-a.json", "predictions/model-a", "default", "ocw/dataset"),
    ("model-b.json", "predictions/model-b/run-01.json", "default", "ocw/dataset"),
    ("randomized-a.json", "predictions/randomized-a", "ocw_randomized", "ocw/dataset"),
    ("wote-spans.json", "predictions/wote", "wote", "wote"),
)


def main_results():
    """Score with the CLI from this folder, so the results hold paths relative to it."""
    cli = [str(Path(sys.executable).parent / "ocw-hub")]
    for out, predictions, config, data in RESULTS:
        (OUT / out).unlink(missing_ok=True)
        subprocess.run(
            [
                *cli,
                "evaluate",
                predictions,
                "--config",
                config,
                "--data-dir",
                data,
                "--no-checks",
                "--out",
                out,
            ],
            cwd=OUT,
            check=True,
            capture_output=True,
        )


if __name__ == "__main__":
    main()
    main_wote()
    main_predictions()
    main_results()
