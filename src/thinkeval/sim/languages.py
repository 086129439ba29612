"""A few fixed sentences per language, for simulated replies that IFEval asks in a language.

Each text is the same small scene (a boat coming back to harbour) written in the language,
long enough for langdetect to name it. The keys are the ISO 639-1 codes langdetect answers
with; they cover every language the real IFEval prompts ask for (and a few common others).
"""

from __future__ import annotations

import re

TEXTS = {
    "ar": "يعود القارب ببطء إلى الميناء. تلمع شمس الصباح على الماء ويجفف الصيادون شباكهم. "
    "يلعب الأطفال على الشاطئ وتطير الطيور في السماء. إنه يوم هادئ وجميل.",
    "bg": "Лодката бавно се връща в пристанището. Сутрешното слънце блести върху водата, а "
    "рибарите сушат мрежите си. Децата играят на брега и птиците летят в небето. Това е тих "
    "и красив ден.",
    "bn": "নৌকাটি ধীরে ধীরে বন্দরে ফিরে আসছে। সকালের রোদ জলের উপর ঝলমল করছে এবং জেলেরা তাদের "
    "জাল শুকাচ্ছে। শিশুরা তীরে খেলছে এবং পাখিরা আকাশে উড়ছে। এটি একটি শান্ত এবং সুন্দর দিন।",
    "de": "Das Boot kehrt langsam in den Hafen zurück. Die Morgensonne glitzert auf dem Wasser "
    "und die Fischer trocknen ihre Netze. Die Kinder spielen am Strand und die Vögel fliegen "
    "am Himmel. Es ist ein ruhiger und schöner Tag.",
    "es": "El barco vuelve despacio al puerto. El sol de la mañana brilla sobre el agua y los "
    "pescadores secan sus redes. Los niños juegan en la playa y los pájaros vuelan en el "
    "cielo. Hoy es un día tranquilo y bonito.",
    "fa": "قایق آرام آرام به بندر برمی‌گردد. آفتاب صبح روی آب می‌درخشد و ماهیگیران تورهای خود "
    "را خشک می‌کنند. بچه‌ها در ساحل بازی می‌کنند و پرندگان در آسمان پرواز می‌کنند. امروز "
    "یک روز آرام و زیبا است.",
    "fi": "Vene palaa hitaasti satamaan. Aamuaurinko kimaltelee veden pinnalla ja kalastajat "
    "kuivaavat verkkojaan. Lapset leikkivät rannalla ja linnut lentävät taivaalla. Tänään on "
    "rauhallinen ja kaunis päivä.",
    "fr": "Le bateau revient lentement au port. Le soleil du matin brille sur l'eau et les "
    "pêcheurs font sécher leurs filets. Les enfants jouent sur la plage et les oiseaux volent "
    "dans le ciel. C'est une journée calme et belle.",
    "gu": "હોડી ધીમે ધીમે બંદર પર પાછી આવી રહી છે. સવારનો તડકો પાણી પર ચમકી રહ્યો છે અને "
    "માછીમારો તેમની જાળ સૂકવી રહ્યા છે. બાળકો કિનારે રમી રહ્યા છે અને પક્ષીઓ આકાશમાં ઊડી "
    "રહ્યા છે. આ એક શાંત અને સુંદર દિવસ છે.",
    "hi": "नाव धीरे धीरे बंदरगाह में लौट रही है। सुबह की धूप पानी पर चमक रही है और मछुआरे "
    "अपने जाल सुखा रहे हैं। बच्चे किनारे पर खेल रहे हैं और पक्षी आसमान में उड़ रहे हैं। यह "
    "एक शांत और सुंदर दिन है।",
    "it": "La barca torna lentamente nel porto. Il sole del mattino brilla sull'acqua e i "
    "pescatori stendono le loro reti. I bambini giocano sulla spiaggia e gli uccelli volano "
    "nel cielo. Oggi è una giornata tranquilla e bella.",
    "kn": "ದೋಣಿ ನಿಧಾನವಾಗಿ ಬಂದರಿಗೆ ಹಿಂತಿರುಗುತ್ತಿದೆ. ಬೆಳಗಿನ ಬಿಸಿಲು ನೀರಿನ ಮೇಲೆ ಹೊಳೆಯುತ್ತಿದೆ ಮತ್ತು "
    "ಮೀನುಗಾರರು ತಮ್ಮ ಬಲೆಗಳನ್ನು ಒಣಗಿಸುತ್ತಿದ್ದಾರೆ. ಮಕ್ಕಳು ದಡದಲ್ಲಿ ಆಟವಾಡುತ್ತಿದ್ದಾರೆ ಮತ್ತು "
    "ಹಕ್ಕಿಗಳು ಆಕಾಶದಲ್ಲಿ ಹಾರುತ್ತಿವೆ. ಇದು ಒಂದು ಶಾಂತ ಮತ್ತು ಸುಂದರ ದಿನ.",
    "ko": "배가 천천히 항구로 돌아오고 있습니다. 아침 햇살이 물 위에서 반짝이고 어부들은 그물을 "
    "말리고 있습니다. 아이들은 해변에서 놀고 새들은 하늘을 날고 있습니다. 오늘은 조용하고 "
    "아름다운 날입니다.",
    "mr": "बोट हळूहळू बंदरात परत येत आहे. सकाळचे ऊन पाण्यावर चमकत आहे आणि कोळी आपली जाळी "
    "वाळवत आहेत. मुले किनाऱ्यावर खेळत आहेत आणि पक्षी आकाशात उडत आहेत. हा एक शांत आणि "
    "सुंदर दिवस आहे.",
    "ne": "डुङ्गा बिस्तारै बन्दरगाहमा फर्किरहेको छ। बिहानको घाम पानीमा चम्किरहेको छ र "
    "माझीहरू आफ्नो जाल सुकाउँदै छन्। केटाकेटीहरू किनारमा खेलिरहेका छन् र चराहरू आकाशमा "
    "उडिरहेका छन्। यो एउटा शान्त र सुन्दर दिन हो।",
    "pa": "ਕਿਸ਼ਤੀ ਹੌਲੀ ਹੌਲੀ ਬੰਦਰਗਾਹ ਵੱਲ ਵਾਪਸ ਆ ਰਹੀ ਹੈ। ਸਵੇਰ ਦੀ ਧੁੱਪ ਪਾਣੀ ਉੱਤੇ ਚਮਕ ਰਹੀ ਹੈ ਅਤੇ "
    "ਮਛੇਰੇ ਆਪਣੇ ਜਾਲ ਸੁਕਾ ਰਹੇ ਹਨ। ਬੱਚੇ ਕੰਢੇ ਉੱਤੇ ਖੇਡ ਰਹੇ ਹਨ ਅਤੇ ਪੰਛੀ ਅਸਮਾਨ ਵਿੱਚ ਉੱਡ ਰਹੇ ਹਨ। "
    "ਇਹ ਇੱਕ ਸ਼ਾਂਤ ਅਤੇ ਸੋਹਣਾ ਦਿਨ ਹੈ।",
    "pt": "O barco volta devagar para o porto. O sol da manhã brilha sobre a água e os "
    "pescadores secam as suas redes. As crianças brincam na praia e os pássaros voam no céu. "
    "Hoje é um dia calmo e bonito.",
    "ru": "Лодка медленно возвращается в гавань. Утреннее солнце блестит на воде, а рыбаки "
    "сушат свои сети. Дети играют на берегу, и птицы летают в небе. Это тихий и красивый день.",
    "sw": "Mashua inarudi polepole bandarini. Jua la asubuhi linang'aa juu ya maji na wavuvi "
    "wanaanika nyavu zao. Watoto wanacheza ufukweni na ndege wanaruka angani. Leo ni siku "
    "tulivu na nzuri sana.",
    "ta": "படகு மெதுவாக துறைமுகத்திற்குத் திரும்புகிறது. காலை வெயில் தண்ணீரில் மின்னுகிறது, "
    "மீனவர்கள் தங்கள் வலைகளை உலர்த்துகிறார்கள். குழந்தைகள் கரையில் விளையாடுகிறார்கள், "
    "பறவைகள் வானத்தில் பறக்கின்றன. இது ஒரு அமைதியான அழகான நாள்.",
    "te": "పడవ నెమ్మదిగా రేవుకు తిరిగి వస్తోంది. ఉదయపు ఎండ నీటిపై మెరుస్తోంది మరియు జాలరులు "
    "తమ వలలను ఆరబెడుతున్నారు. పిల్లలు ఒడ్డున ఆడుకుంటున్నారు మరియు పక్షులు ఆకాశంలో "
    "ఎగురుతున్నాయి. ఇది ఒక ప్రశాంతమైన అందమైన రోజు.",
    "th": "เรือค่อยๆ กลับเข้าท่าเรือ แสงแดดยามเช้าส่องประกายบนผืนน้ำ และชาวประมงกำลังตากอวน "
    "ของพวกเขา เด็กๆ เล่นอยู่บนชายหาด และนกบินอยู่บนท้องฟ้า วันนี้เป็นวันที่เงียบสงบ "
    "และสวยงาม",
    "ur": "کشتی آہستہ آہستہ بندرگاہ کی طرف واپس آ رہی ہے۔ صبح کی دھوپ پانی پر چمک رہی ہے اور "
    "مچھیرے اپنے جال سکھا رہے ہیں۔ بچے کنارے پر کھیل رہے ہیں اور پرندے آسمان میں اڑ رہے "
    "ہیں۔ یہ ایک پرسکون اور خوبصورت دن ہے۔",
    "vi": "Con thuyền chậm rãi trở về bến cảng. Nắng sớm lấp lánh trên mặt nước và những "
    "người đánh cá đang phơi lưới. Trẻ em chơi đùa trên bãi biển và chim bay trên bầu trời. "
    "Hôm nay là một ngày yên bình và đẹp đẽ.",
}
# Sentence marks and commas dropped from words: a reply builds its own sentences from them.
_MARKS = re.compile(r"[.,،।۔]+$")


def words(language: str) -> tuple[str, ...] | None:
    """The words of the language's text in order, without punctuation; None for a language
    the simulator cannot write.

    >>> words("de")[:3]
    ('Das', 'Boot', 'kehrt')
    """
    text = TEXTS.get(language)
    if text is None:
        return None
    return tuple(_MARKS.sub("", word) for word in text.split())
