"""Which language a legacy code page's reading of a word is in, by its letters' pairs.

A code page reads any byte, and most readings are letters: ``styczeń`` in Windows-1250 is
``styczeñ`` in Windows-1252, ``àéè`` in Windows-1252 is ``айи`` in Windows-1251, each
without a fault of form. What tells them apart is the language: ``cz`` is Polish, not
Spanish; ``йи`` is written in no Russian word. Each language a code page is used for is a
model of letter pairs (a bigram model with the word's start and end, backed off to single
letters), built once from a paragraph of ordinary prose below; a reading is as likely as
the languages of its code page make its words (each in its likeliest: names and places
mix languages). A letter the language does not write (``ñ`` in Polish) is near
impossible, so the letters of one script and of one language are what a reading needs.
"""

# ruff: noqa: RUF001 (Cyrillic, Greek and other letters, on purpose)

from __future__ import annotations

import functools
import importlib
import itertools
import math
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["LANGUAGES", "known_words", "language_score"]

# Prose in each language, written for this module: its letter pairs are the model.
_PROSE = {
    "fr": "Le matin, nous avons pris le café près de la fenêtre. Ma sœur a déjà préparé la "
    "réunion de jeudi: il faut écrire le compte rendu, vérifier les dépenses et répondre aux "
    "élèves. Après la pluie, les enfants sont allés à l'école en été comme en hiver. Où est "
    "la clé du bureau? Noël approche, et nous fêterons ça chez mon frère, à côté du théâtre.",
    "de": "Gestern haben wir über die Größe der neuen Küche gesprochen. Die Straße vor dem "
    "Büro wird im März für zwölf Tage gesperrt, deshalb müssen alle früher losfahren. Bitte "
    "prüfe die Unterlagen für die Besprechung und schicke mir schöne Grüße an deine Mutter. "
    "Das Wetter ist heute grässlich, aber morgen wird es wärmer und sonniger sein.",
    "es": "El señor García llegó a la reunión del miércoles con su compañero. Mañana "
    "hablaremos de la situación económica y de las próximas vacaciones en el norte. ¿Qué "
    "opinas del informe? La niña está aprendiendo a leer, y el año que viene irá a la "
    "escuela. También necesitamos más información sobre la dirección de la oficina.",
    "pt": "Não sei se você já recebeu a informação sobre a reunião de amanhã. As crianças "
    "estão na escola e a mãe delas vai buscá-las às cinco horas. A situação econômica "
    "melhorou, mas ainda há muitas questões sem solução. Obrigado pela atenção e até logo, "
    "a avó também mandou lembranças para o irmão e a irmã.",
    "it": "Domani mattina andrò in città per comprare il pane e parlerò con il direttore "
    "della società. Perché non vieni anche tu? La settimana scorsa è stata molto faticosa, "
    "ma il caffè al bar della stazione è sempre buono. Più tardi scriverò una lettera a mia "
    "nonna, che abita in un piccolo paese vicino al lago.",
    "sv": "I går var vi på mötet i Göteborg och pratade om nästa års budget. Många av "
    "eleverna tyckte att det var för svårt, men läraren förklarade allt en gång till. Jag "
    "måste köpa bröd och mjölk innan affären stänger. På söndag åker vi till stugan vid sjön "
    "om vädret är bra.",
    "da": "I går var vi til mødet i Århus og talte om næste års budget. Mange af eleverne "
    "syntes, at det var for svært, men læreren forklarede det hele én gang til. Jeg skal "
    "købe brød og mælk, før butikken lukker. På søndag kører vi til sommerhuset ved søen, "
    "hvis vejret er godt. Hils din søster og din bror fra os, og tak for sidst.",
    "ca": "Ahir al vespre vaig parlar amb la meva germana sobre la reunió de gener. Hem de "
    "preparar l'informe, revisar les despeses i respondre les preguntes dels alumnes. Bon "
    "dia, si us plau, digueu-me on és la comptabilitat i quan cobrarem. Moltes gràcies, "
    "fins aviat, a la plaça hi ha un mercat cada dijous, i l'àvia hi va a peu.",
    "pl": "Wczoraj wieczorem rozmawiałem z siostrą o spotkaniu, które odbędzie się w "
    "styczniu. Musimy przygotować sprawozdanie, sprawdzić wydatki i odpowiedzieć na "
    "pytania uczniów. Pies leżał pod ławką, a kot spał na ciepłym piecu. Dzień dobry, "
    "proszę o informację, gdzie jest księgowość i kiedy będzie wypłata. Jeżeli pogoda "
    "pozwoli, pojedziemy nad jezioro, ugotujemy zupę i zjemy obiad na świeżym powietrzu.",
    "cs": "Včera večer jsem mluvil se sestrou o schůzce, která bude v lednu. Musíme "
    "připravit zprávu, zkontrolovat výdaje a odpovědět na otázky žáků. Pes ležel pod "
    "lavicí a kočka spala na teplých kamnech. Dobrý den, prosím o informaci, kde je účtárna "
    "a kdy bude výplata. Ďábel, kůň a třešně: děti se učí psát písmena s háčky a čárkami.",
    "sk": "Včera večer som hovoril so sestrou o stretnutí, ktoré bude v januári. Musíme "
    "pripraviť správu, skontrolovať výdavky a odpovedať na otázky žiakov. Kôň sa páslo na "
    "lúke a ďateľ ťukal do stromu. Dobrý deň, prosím o informáciu, kde je účtovníctvo.",
    "hu": "Tegnap este beszéltem a nővéremmel a januári értekezletről. El kell készítenünk "
    "a jelentést, ellenőrizni a kiadásokat, és válaszolni a diákok kérdéseire. Az ülésen "
    "sűrű vita volt. Jó napot kívánok, kérem, mondja meg, hol van a könyvelés, és mikor lesz "
    "a fizetés. Köszönöm szépen, viszontlátásra, ünnepek előtt még üzenek.",
    "ro": "Ieri seară am vorbit cu sora mea despre întâlnirea din ianuarie. Trebuie să "
    "pregătim raportul, să verificăm cheltuielile şi să răspundem la întrebările elevilor. "
    "Bună ziua, vă rog să îmi spuneţi unde este contabilitatea şi când vine salariul. Mâine "
    "ţara întreagă sărbătoreşte, iar şcoala este închisă.",
    "hr": "Jučer navečer razgovarao sam sa sestrom o sastanku koji će biti u siječnju. "
    "Moramo pripremiti izvješće, provjeriti troškove i odgovoriti na pitanja učenika. Dobar "
    "dan, molim vas recite mi gdje je računovodstvo i kada će biti plaća. Đak je išao kući "
    "preko mosta, a žena je čekala ispred škole.",
    "ru": "Вчера вечером я разговаривал с сестрой о встрече, которая будет в январе. Нам "
    "нужно подготовить отчёт, проверить расходы и ответить на вопросы учеников. Добрый "
    "день, скажите, пожалуйста, где находится бухгалтерия и когда будет зарплата. Съел же "
    "он ещё этих свежих булок и выпил чаю. Россия, область, район, улица, ООО, МВД.",
    "uk": "Учора ввечері я розмовляв із сестрою про зустріч, яка буде в січні. Нам "
    "потрібно підготувати звіт, перевірити витрати і відповісти на запитання учнів. Добрий "
    "день, скажіть, будь ласка, де знаходиться бухгалтерія і коли буде зарплата. Їжак "
    "ґанок, європейський, її, Україна, Київ, гривня, пʼять, сім'я.",
    "bg": "Вчера вечерта говорих със сестра си за срещата, която ще бъде през януари. "
    "Трябва да подготвим отчета, да проверим разходите и да отговорим на въпросите на "
    "учениците. Добър ден, кажете ми, моля, къде е счетоводството и кога ще бъде заплатата. "
    "България, София, държава, щастие, ъгъл.",
    "el": "Χθες το βράδυ μίλησα με την αδελφή μου για τη συνάντηση του Ιανουαρίου. Πρέπει να "
    "ετοιμάσουμε την αναφορά, να ελέγξουμε τα έξοδα και να απαντήσουμε στις ερωτήσεις των "
    "μαθητών. Καλημέρα σας, πείτε μου παρακαλώ πού είναι το λογιστήριο και πότε θα "
    "πληρωθούμε. Ευχαριστώ πολύ, καλό βράδυ, η Ελλάδα και η Αθήνα.",
    "tr": "Dün akşam kız kardeşimle ocak ayındaki toplantı hakkında konuştum. Raporu "
    "hazırlamamız, giderleri kontrol etmemiz ve öğrencilerin sorularını cevaplamamız "
    "gerekiyor. İyi günler, muhasebenin nerede olduğunu ve maaşın ne zaman ödeneceğini "
    "söyler misiniz? Teşekkür ederim, İstanbul çok güzel bir şehir, ağaçlar yeşil.",
    "he": "אתמול בערב דיברתי עם אחותי על הפגישה שתהיה בינואר. אנחנו צריכים להכין את הדוח, "
    "לבדוק את ההוצאות ולענות על השאלות של התלמידים. שלום, תגיד לי בבקשה איפה הנהלת "
    "החשבונות ומתי תהיה המשכורת. תודה רבה, ערב טוב, ירושלים ותל אביב.",
    "ar": "تحدثت أمس مساء مع أختي عن الاجتماع الذي سيكون في يناير. يجب علينا أن نعد التقرير "
    "وأن نراجع المصاريف وأن نجيب على أسئلة الطلاب. مرحبا بالعالم، من فضلك قل لي أين قسم "
    "المحاسبة ومتى سيكون الراتب. شكرا جزيلا، مساء الخير، القاهرة والرياض.",
    "fa": "دیروز عصر با خواهرم درباره جلسه‌ای که در ژانویه خواهد بود صحبت کردم. باید گزارش "
    "را آماده کنیم و هزینه‌ها را بررسی کنیم و به پرسش‌های دانش‌آموزان پاسخ بدهیم. سلام، "
    "لطفا بگویید حسابداری کجاست. خیلی ممنون، تهران و اصفهان.",
    "lt": "Vakar vakare kalbėjau su seserimi apie susitikimą, kuris bus sausio mėnesį. "
    "Turime paruošti ataskaitą, patikrinti išlaidas ir atsakyti į mokinių klausimus. Laba "
    "diena, pasakykite, kur yra buhalterija ir kada bus atlyginimas. Ačiū, gražių švenčių, "
    "ąžuolas, žąsis, ūkis, įėjimas, dėkoju.",
    "lv": "Vakar vakarā es runāju ar māsu par sanāksmi, kas notiks janvārī. Mums jāsagatavo "
    "ziņojums, jāpārbauda izdevumi un jāatbild uz skolēnu jautājumiem. Labdien, lūdzu, "
    "pasakiet, kur ir grāmatvedība un kad būs alga. Paldies, ķēķis, ļoti, ģimene, šodien.",
    "vi": "Tối hôm qua tôi đã nói chuyện với chị gái về cuộc họp vào tháng Giêng. Chúng ta "
    "phải chuẩn bị báo cáo, kiểm tra các khoản chi và trả lời câu hỏi của học sinh. Làm "
    "ơn cho tôi biết phòng kế toán ở đâu và khi nào có lương. Chúc ngủ ngon. Buổi sáng "
    "trời mưa, bà ngoại đi chợ mua rau, thịt và cá. Hà Nội, thành phố Hồ Chí Minh, Đà "
    "Nẵng, Huế. Họ nói rằng mùa thu ở đây rất đẹp, lá vàng rơi khắp phố, và trẻ em chơi "
    "đùa trong công viên. Anh ấy đọc sách, còn em gái học bài.",
    "et": "Eile õhtul rääkisin õega jaanuaris toimuvast koosolekust. Peame aruande "
    "ette valmistama, kulud üle vaatama ja vastama õpilaste küsimustele. Tere päevast, "
    "öelge palun, kus on raamatupidamine ja millal tuleb palk. Aitäh, head ööd, jää.",
}
# A second paragraph for the languages short words are most often read in: stories, errands.
_MORE_PROSE = {
    "fr": "Il était une fois un petit garçon qui voulait voir la mer. Son père lui a dit: «Nous"
    " irons l'année prochaine, après les fêtes.» Chaque soir, il regardait la carte et "
    "rêvait des bateaux. Déjà, à huit ans, il savait nager; sa mère était très fière. Le "
    "dîner est prêt, viens vite, ça va refroidir. Il a reçu une lettre de Québec, la "
    "deuxième cette année.",
    "ru": "Жили-были дед да баба. Утром я пошёл в магазин, купил хлеб, молоко и сыр. Где ты был"
    " вчера? Мы ждали тебя весь день. Он сказал, что придёт завтра, если не будет дождя. "
    "Это наш новый дом, а там живёт мой брат с женой и детьми. Весь мир знает эту песню. "
    "Что делать? Кто виноват? Как дела? Спасибо, всё хорошо, и у нас тоже. Щи и каша, "
    "объявление, подъезд, шёлк, юность, эхо, цифры, жёлтый цвет, чистый лист.",
    "uk": "Жили собі дід та баба. Вранці я пішов до крамниці, купив хліб, молоко і сир. Де ти "
    "був учора? Ми чекали на тебе цілий день. Він сказав, що прийде завтра, якщо не буде "
    "дощу. Це наш новий будинок, а там живе мій брат з дружиною і дітьми. Щиро дякую, все"
    " добре, і в нас теж. Ґудзик, ґрунт, їжа, їхати, єдність, Євген, Львів.",
    "el": "Μια φορά κι έναν καιρό ζούσε ένας βασιλιάς. Το πρωί πήγα στο μαγαζί και αγόρασα "
    "ψωμί, γάλα και τυρί. Πού ήσουν χθες; Σε περιμέναμε όλη μέρα. Είπε ότι θα έρθει "
    "αύριο, αν δεν βρέχει. Αυτό είναι το νέο μας σπίτι, και εκεί μένει ο αδελφός μου. "
    "Νερό, θάλασσα, ήλιος, φίλος, δουλειά, ώρα, ψάρι, ζωή.",
    "bg": "Имало едно време един цар. Сутринта отидох до магазина и купих хляб, мляко и "
    "сирене. Къде беше вчера? Чакахме те цял ден. Той каза, че ще дойде утре, ако не вали. "
    "Това е новата ни къща, а там живее моят брат с жена си и децата. Който рано рани, две "
    "сполуки сполучва. Най-хубавото време е през май, когато всичко цъфти. Някой почука на "
    "вратата, но никой не отвори. Моят приятел пие мляко, а твоят пие кафе. Двайсет и пет "
    "лева, моля. Край на деня, лека нощ, до скоро.",
    "pl": "Dawno, dawno temu żył sobie król. Rano poszedłem do sklepu i kupiłem chleb, mleko i "
    "ser. Gdzie byłeś wczoraj? Czekaliśmy na ciebie cały dzień. Powiedział, że przyjdzie "
    "jutro, jeśli nie będzie padać. To jest nasz nowy dom, a tam mieszka mój brat z żoną "
    "i dziećmi. Łódź, Kraków, Gdańsk, Wrocław, środa, czwartek, piątek, sobota, "
    "niedziela.",
    "cs": "Byl jednou jeden král. Ráno jsem šel do obchodu a koupil chléb, mléko a sýr. Kde jsi"
    " byl včera? Čekali jsme na tebe celý den. Řekl, že přijde zítra, pokud nebude pršet."
    " Tohle je náš nový dům a tam bydlí můj bratr se ženou a dětmi. Pondělí, úterý, "
    "středa, čtvrtek, pátek, sobota, neděle, Plzeň, Brno, Ústí, České Budějovice.",
    "hu": "Egyszer volt, hol nem volt, élt egyszer egy király. Reggel elmentem a boltba, és "
    "vettem kenyeret, tejet és sajtot. Hol voltál tegnap? Egész nap vártunk rád. Azt "
    "mondta, hogy holnap jön, ha nem esik az eső. Ez az új házunk, ott lakik a bátyám a "
    "feleségével és a gyerekeivel. Hétfő, kedd, szerda, csütörtök, péntek, szombat, "
    "vasárnap, Győr, Pécs, Szeged, Eger, fő, nő, idő, erő.",
    "lt": "Kartą gyveno karalius. Rytą nuėjau į parduotuvę ir nusipirkau duonos, pieno ir "
    "sūrio. Kur buvai vakar? Visą dieną tavęs laukėme. Jis pasakė, kad ateis rytoj, jei "
    "nelis. Čia mūsų naujas namas, o ten gyvena mano brolis su žmona ir vaikais. Vilnius,"
    " Kaunas, Šiauliai, Klaipėda, Panevėžys.",
    "tr": "Bir varmış bir yokmuş, bir zamanlar bir kral yaşarmış. Sabah markete gittim ve "
    "ekmek, süt ve peynir aldım. Dün neredeydin? Bütün gün seni bekledik. Yağmur yağmazsa"
    " yarın geleceğini söyledi. Burası bizim yeni evimiz, orada da ağabeyim karısı ve "
    "çocuklarıyla oturuyor. İzmir, Ankara, Bursa, Şişli, Üsküdar, Çanakkale.",
    "he": "היה היה מלך. בבוקר הלכתי לחנות וקניתי לחם, חלב וגבינה. איפה היית אתמול? חיכינו לך כל"
    " היום. הוא אמר שיבוא מחר אם לא ירד גשם. זה הבית החדש שלנו, ושם גר אחי עם אשתו "
    "והילדים. חיפה, באר שבע, נתניה, אילת.",
}
#: The languages each code page is written in (Western code pages: Western Europe's).
_WESTERN = ("fr", "de", "es", "pt", "it", "sv", "da", "ca")
_CENTRAL = ("pl", "cs", "sk", "hu", "ro", "hr")
_BALTIC = ("lt", "lv", "et")
LANGUAGES: dict[str, tuple[str, ...]] = {
    "cp1252": _WESTERN,
    "latin-1": _WESTERN,
    "iso8859_15": _WESTERN,
    "mac_roman": _WESTERN,
    "cp1250": _CENTRAL,
    "iso8859_2": _CENTRAL,
    "cp1251": ("ru", "uk", "bg"),
    "koi8_r": ("ru",),
    "koi8_u": ("uk", "ru"),
    "cp866": ("ru", "uk"),
    "cp1253": ("el",),
    "iso8859_7": ("el",),
    "cp1254": ("tr", *_WESTERN),
    "iso8859_9": ("tr", *_WESTERN),
    "cp1255": ("he",),
    "iso8859_8": ("he",),
    "cp1256": ("ar", "fa"),
    "cp1257": _BALTIC,
    "cp1258": ("vi",),
    "iso8859_13": _BALTIC,
}
_START, _END = "^", "$"
_KNOWN = 3.0  # nats a word the language's prose writes counts at least
_ORDINALS = frozenset("ªºµ")  # 1ª, 2º, 5µm: letters to Unicode, signs to a reader
_PAIR_WEIGHT = 2.0  # how much a letter pair's own count weighs against the letter alone
_UNSEEN = 1e-7  # the chance of a letter not in the language's alphabet (ñ in Polish)
_RARE = 1e-3  # of one in its alphabet the prose above never writes (ï, ÿ in French)
_FLOOR = -6.0  # the least a word in the language's own letters counts, in nats
# A word of capitals alone, against one in small letters: about one word in twenty of
# ordinary text is written so (a heading, an abbreviation), log(20) nats.
_CAPITALS = 3.0
# Letters Windows' and ISO's pages write for the alphabet's own (Romanian's s and t with a
# cedilla, not a comma below; the ISO-8859-7 apostrophe-less tonos forms are the same).
_ALSO_WRITTEN = {"ro": "şţ"}
# A letter as likely as one of this many is neither evidence for a language nor against it:
# a letter pair likelier than that in the language counts for it, one less likely against.
_EVEN = math.log(1 / 40)


class _Model:
    """A letter-pair model of one language: log P(letter | the letter before it)."""

    def __init__(self, prose: str, alphabet: frozenset[str], known: str) -> None:
        pairs: Counter[str] = Counter()
        firsts: Counter[str] = Counter()
        letters: Counter[str] = Counter()
        for word in _letter_runs(prose.lower()):
            chain = _START + word + _END
            letters.update(chain[1:])
            for a, b in itertools.pairwise(chain):
                pairs[a + b] += 1
                firsts[a] += 1
        self._known = frozenset(_letter_runs(known.lower()))
        total = sum(letters.values())
        self._pairs = pairs
        self._firsts = firsts
        self._single = {c: n / total for c, n in letters.items()}
        self._alphabet = alphabet

    def single(self, letter: str) -> float:
        found = self._single.get(letter)
        if found is not None:
            return found
        return _RARE if letter in self._alphabet else _UNSEEN

    @functools.lru_cache(maxsize=65536)  # noqa: B019 (a few dozen models, kept for the run)
    def log_p(self, a: str, b: str) -> float:
        single = self.single(b)
        pair = self._pairs.get(a + b, 0)
        return math.log((pair + _PAIR_WEIGHT * single) / (self._firsts.get(a, 0) + _PAIR_WEIGHT))

    def word(self, word: str, capitals: bool) -> float:
        """How much likelier ``word`` is in this language than in none. A word of capitals
        only (``ЦБ``, ``США``: an abbreviation) or of two letters is weighed by its letters
        alone: initials do not follow each other as a word's letters do. One of four
        capitals or more is less likely, by ``_CAPITALS``, than a word in small letters:
        the bytes of a word in one code page are often capitals in another (KOI8-R's small
        letters are Windows-1251's capitals: книга is КНИГА there); two or three (ЦБ, ФСБ)
        are as often an abbreviation as not."""
        if len(word) > 1 and word in self._known:  # a word its prose writes (да, не, où)
            score = _KNOWN + max(self._unknown(word, capitals), 0.0)
        else:
            score = self._unknown(word, capitals)
        return score - (_CAPITALS if capitals and len(word) > 3 else 0.0)

    def _unknown(self, word: str, capitals: bool) -> float:
        if capitals or len(word) < 3:
            return sum(math.log(self.single(c)) - _EVEN for c in word)
        chain = _START + word + _END
        pairs = sum(self.log_p(a, b) - _EVEN for a, b in itertools.pairwise(chain))
        # An odd word in the language's letters (a pangram's "zażółć") is still a word: its
        # pairs count down to a floor; a letter outside the alphabet counts in full.
        outside = sum(c not in self._alphabet for c in word) * math.log(_UNSEEN / _RARE)
        return max(pairs, _FLOOR) + outside


def _letter_runs(text: str) -> Iterable[str]:
    run: list[str] = []
    for char in text:
        if char.isalpha() and char not in _ORDINALS:
            run.append(char)
        elif run:
            yield "".join(run)
            run = []
    if run:
        yield "".join(run)


@functools.cache
def _model(language: str) -> _Model:
    prose = " ".join((_PROSE[language], _MORE_PROSE.get(language, ""), _cldr_words(language)))
    # The words of the prose alone are known words: CLDR's include abbreviations of days
    # and months (пт, вс), which are no evidence for a word of two letters.
    known = " ".join((_PROSE[language], _MORE_PROSE.get(language, "")))
    return _Model(prose, _alphabet(language), known)


def _cldr_words(language: str) -> str:
    """The words of dates in ``language`` (months, days, "yesterday", "in 3 hours"), as
    dateparser ships them from the Unicode CLDR: a few hundred real words that hold the
    language's letters, beside the prose above; their ASCII spellings for keyboards
    without them (``Pazdziernik``) left out."""
    try:
        module = importlib.import_module(f"dateparser.data.date_translation_data.{language}")
    except ImportError:
        return ""
    words: set[str] = set()
    _strings(getattr(module, "info", {}), words)
    folded = {_fold(w) for w in words if not w.isascii()}
    return " ".join(sorted(w for w in words if not (w.isascii() and _fold(w) in folded)))


_SIMPLE = "simplifications"  # patterns, with fragments of words: ([eè]), (ами)


def _strings(value: object, out: set[str], key: str = "") -> None:
    if key in ("name", "date_order", "relative-type-regex", "sentence_splitter_group", _SIMPLE):
        return
    if isinstance(value, str):
        out.update(w for w in _letter_runs(value.lower()) if len(w) > 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k if k.isascii() is False else "", out)  # a phrase keyed by itself
            _strings(v, out, str(k))
    elif isinstance(value, list | tuple):
        for v in value:
            _strings(v, out, key)


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if c.isascii())


def _alphabet(language: str) -> frozenset[str]:
    """The letters ``language`` writes, as the Unicode CLDR gives them (ICU's exemplar
    characters), small letters; a Latin alphabet's ASCII letters all (foreign words)."""
    import icu

    letters = {c for c in icu.LocaleData(language).getExemplarSet(0, 0) if len(c) == 1}
    letters |= set(_ALSO_WRITTEN.get(language, ""))
    if "a" in letters:
        letters |= set("abcdefghijklmnopqrstuvwxyz")
    return frozenset(letters)


def language_score(texts: Sequence[str], codec: str) -> float | None:
    """How much likelier the letters of ``texts`` (words read in ``codec``) are in the
    languages ``codec`` is written in than in none: each word in its likeliest one (a
    table of names mixes Italian, Spanish and Danish ones), in nats; None for a code page
    no language here is modelled for. Only runs of letters with one beyond ASCII count
    (the ASCII words read the same in every code page)."""
    languages = LANGUAGES.get(codec)
    if languages is None:
        return None
    words = [
        (w.replace("İ", "i").lower(), len(w) > 1 and w.isupper())
        for t in texts
        for w in _letter_runs(t)
        if not w.isascii()
    ]
    if not words:
        return 0.0
    return sum(max(_model(lang).word(w, caps) for lang in languages) for w, caps in words)


def known_words(text: str, codec: str) -> bool:
    """Tell whether each run of letters beyond ASCII in ``text`` (read in ``codec``) is a
    word the prose of one of ``codec``'s languages writes (``да``, ``за``; not ``айи``)."""
    runs = [w.lower() for w in _letter_runs(text) if not w.isascii()]
    languages = LANGUAGES.get(codec, ())
    return bool(runs) and all(any(w in _model(lang)._known for lang in languages) for w in runs)
