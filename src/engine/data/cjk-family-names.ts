/**
 * Common family names written in Han characters and Hangul, with the romanized spellings company
 * sites and mail systems use for them. Used only to tell which word of a romanized name beside a
 * native one is the family name (the native script writes the family name first); a name not
 * listed here is read by the page's other cues. Spellings are ASCII, lowercase; `|` separates
 * variants (long vowels: Satō → sato, satou, satoh; Cantonese, Hokkien and Wade-Giles spellings of
 * Chinese names; the usual spellings of Korean names beside the Revised Romanization).
 */

// Japanese: the most common family names (each ~0.05% of the population or more).
const JAPANESE = `佐藤:sato|satou|satoh 鈴木:suzuki 高橋:takahashi 田中:tanaka 伊藤:ito|itou|itoh 渡辺:watanabe 渡邊:watanabe 渡邉:watanabe
山本:yamamoto 中村:nakamura 小林:kobayashi 加藤:kato|katou|katoh 吉田:yoshida 山田:yamada 佐々木:sasaki 山口:yamaguchi
松本:matsumoto 井上:inoue 木村:kimura 林:hayashi 斎藤:saito|saitou|saitoh 斉藤:saito|saitou|saitoh 齋藤:saito|saitou|saitoh
齊藤:saito|saitou|saitoh 清水:shimizu 山崎:yamazaki|yamasaki 山﨑:yamazaki|yamasaki 森:mori 阿部:abe 池田:ikeda 橋本:hashimoto
山下:yamashita 石川:ishikawa 中島:nakajima|nakashima 前田:maeda 藤田:fujita 小川:ogawa 後藤:goto|gotou|gotoh 岡田:okada
長谷川:hasegawa 村上:murakami 近藤:kondo|kondou|kondoh 石井:ishii 坂本:sakamoto 遠藤:endo|endou|endoh 青木:aoki 藤井:fujii
西村:nishimura 福田:fukuda 太田:ota|ohta|oota 三浦:miura 藤原:fujiwara 岡本:okamoto 松田:matsuda 中川:nakagawa 中野:nakano
原田:harada 小野:ono 田村:tamura 竹内:takeuchi 金子:kaneko 和田:wada 中山:nakayama 石田:ishida 上田:ueda 森田:morita
原:hara 柴田:shibata 酒井:sakai 工藤:kudo|kudou|kudoh 横山:yokoyama 宮崎:miyazaki 宮本:miyamoto 内田:uchida 高木:takagi
安藤:ando|andou|andoh 谷口:taniguchi 大野:ono|ohno|oono 丸山:maruyama 今井:imai 高田:takada 藤本:fujimoto 武田:takeda
村田:murata 上野:ueno 杉山:sugiyama 増田:masuda 平野:hirano 大塚:otsuka|ohtsuka|ootsuka 千葉:chiba 久保:kubo 松井:matsui
小島:kojima 岩崎:iwasaki 桜井:sakurai 櫻井:sakurai 野口:noguchi 松尾:matsuo 野村:nomura 木下:kinoshita 菊地:kikuchi 菊池:kikuchi
佐野:sano 大西:onishi|ohnishi|oonishi 杉本:sugimoto 新井:arai 浜田:hamada 濱田:hamada 菅原:sugawara 市川:ichikawa 水野:mizuno
小松:komatsu 島田:shimada 古川:furukawa 小山:koyama 高野:takano 西田:nishida 菅野:sugano|kanno 山内:yamauchi 西川:nishikawa
五十嵐:igarashi 北村:kitamura 安田:yasuda 中田:nakata|nakada 川口:kawaguchi 平田:hirata 川崎:kawasaki 飯田:iida 吉川:yoshikawa
本田:honda 久保田:kubota 沢田:sawada 澤田:sawada 辻:tsuji 関:seki 吉村:yoshimura 渡部:watanabe|watabe 岩田:iwata 中西:nakanishi
服部:hattori 樋口:higuchi 福島:fukushima 川上:kawakami 永井:nagai 松岡:matsuoka 田口:taguchi 山中:yamanaka 森本:morimoto
土屋:tsuchiya 矢野:yano 広瀬:hirose 廣瀬:hirose 秋山:akiyama 石原:ishihara 松下:matsushita 馬場:baba 大橋:ohashi|ohhashi|oohashi
松浦:matsuura 吉岡:yoshioka 小池:koike 浅野:asano 荒木:araki 大久保:okubo|ohkubo|ookubo 野田:noda 小沢:ozawa 小澤:ozawa
熊谷:kumagai 田辺:tanabe 川村:kawamura 星野:hoshino 黒田:kuroda 堀:hori 尾崎:ozaki 望月:mochizuki 永田:nagata 内藤:naito|naitou|naitoh
松村:matsumura 西山:nishiyama 平井:hirai 大島:oshima|ohshima 岩本:iwamoto 片山:katayama 本間:honma|homma 早川:hayakawa
横田:yokota 岡崎:okazaki 荒井:arai 大石:oishi|ohishi 鎌田:kamata 成田:narita 宮田:miyata 小田:oda 石橋:ishibashi
篠原:shinohara 須藤:sudo|sudou|sudoh 河野:kono|kouno|kohno 大谷:otani|ohtani 高山:takayama 吉野:yoshino 松原:matsubara
稲垣:inagaki 小西:konishi 南:minami 桑原:kuwahara 上原:uehara 宮下:miyashita 坂口:sakaguchi 飯島:iijima 小原:ohara|obara
藤川:fujikawa 西:nishi 東:higashi|azuma 北川:kitagawa 岩井:iwai 二宮:ninomiya 奥村:okumura 長田:nagata|osada 森下:morishita
細川:hosokawa 大川:okawa|ohkawa 金井:kanai 三宅:miyake 堀内:horiuchi 西尾:nishio 竹田:takeda 中井:nakai 大森:omori|ohmori
福井:fukui 荻野:ogino 宮川:miyagawa 川田:kawada 宇野:uno 相馬:soma|souma 岡:oka 谷:tani 中谷:nakatani 森川:morikawa
小倉:ogura 竹中:takenaka 田島:tajima 福本:fukumoto 石塚:ishizuka 内山:uchiyama 松山:matsuyama 小泉:koizumi 吉原:yoshihara
新田:nitta 富田:tomita 山岸:yamagishi 大竹:otake|ohtake 堤:tsutsumi 安部:abe 藤野:fujino 平山:hirayama 奥田:okuda 栗原:kurihara
木内:kiuchi 水谷:mizutani 高畑:takahata 足立:adachi 亀井:kamei 関口:sekiguchi 今村:imamura 村井:murai 中尾:nakao 上村:uemura|kamimura
榎本:enomoto 浅井:asai 北野:kitano 宮原:miyahara 杉浦:sugiura 芦田:ashida 羽田:hada|haneda 大川原:okawara 石黒:ishiguro 伊東:ito|itou|itoh
佐久間:sakuma 寺田:terada 野崎:nozaki 河村:kawamura 坂井:sakai 白石:shiraishi 三上:mikami 小森:komori 宮内:miyauchi 谷川:tanigawa`;

// Chinese: the most common family names (simplified and traditional), pinyin first.
const CHINESE = `王:wang|wong|ong 李:li|lee|lei|lie 张:zhang|chang|cheung|teo|chong 張:zhang|chang|cheung|teo|chong 刘:liu|lau|lao|low
劉:liu|lau|lao|low 陈:chen|chan|tan|chin|chern 陳:chen|chan|tan|chin|chern 杨:yang|yeung|yeo|yong|ieong 楊:yang|yeung|yeo|yong|ieong
黄:huang|wong|ng|hwang|oei|ooi 黃:huang|wong|ng|hwang|oei|ooi 赵:zhao|chao|chiu|chew 趙:zhao|chao|chiu|chew 吴:wu|ng|goh|woo|ngo
吳:wu|ng|goh|woo|ngo 周:zhou|chow|chau|chew|chou|chiew 徐:xu|hsu|tsui|chui|tsu|tsi 孙:sun|suen|soon 孫:sun|suen|soon 马:ma|mah|mar
馬:ma|mah|mar 朱:zhu|chu|choo|chue|gee 胡:hu|wu|foo|woo|oh 郭:guo|kuo|kwok|kuek|quek|kok 何:he|ho|hoe|hor 林:lin|lam|lim|lum|ling
高:gao|kao|ko|kou 罗:luo|lo|law|loh 羅:luo|lo|law|loh 郑:zheng|cheng|cheang|tay|teh|chang 鄭:zheng|cheng|cheang|tay|teh|chang
梁:liang|leung|neo|nio 谢:xie|hsieh|tse|cheah|chia 謝:xie|hsieh|tse|cheah|chia 宋:song|sung 唐:tang|tong 许:xu|hsu|hui|khoo|koh
許:xu|hsu|hui|khoo|koh 韩:han|hon 韓:han|hon 冯:feng|fung|fong 馮:feng|fung|fong 邓:deng|tang|teng 鄧:deng|tang|teng
曹:cao|tsao|tso|cho 彭:peng|pang|phang 曾:zeng|tseng|tsang 肖:xiao|hsiao|siu|seow 蕭:xiao|hsiao|siu|seow 萧:xiao|hsiao|siu|seow
田:tian|tien 董:dong|tung 袁:yuan|yuen 潘:pan|poon|phua 于:yu|yue 蒋:jiang|chiang 蔣:jiang|chiang 蔡:cai|tsai|choi|chua|tsoi
余:yu|yee|yue 杜:du|tu|to 叶:ye|yeh|yip|yap 葉:ye|yeh|yip|yap 程:cheng|ching 苏:su|so|soo 蘇:su|so|soo 魏:wei|ngai
吕:lu|lv|lyu|lui|loo 呂:lu|lv|lyu|lui|loo 丁:ding|ting 任:ren|jen|yam 沈:shen|sham|sim 姚:yao|yiu 卢:lu|lo|lou|loo 盧:lu|lo|lou|loo
姜:jiang|keung|chiang 崔:cui|tsui|chui 钟:zhong|chung|chong 鍾:zhong|chung|chong 谭:tan|tam|tham 譚:tan|tam|tham 陆:lu|luk
陸:lu|luk 汪:wang|wong 范:fan|faan 金:jin|kam|kim 石:shi|shek|sek 廖:liao|liu|liew|leow 贾:jia|chia 賈:jia|chia 夏:xia|ha|hsia
韦:wei|wai 韋:wei|wai 傅:fu|foo 方:fang|fong|hong 白:bai|pak 邹:zou|chau|tsou 鄒:zou|chau|tsou 孟:meng|mang 熊:xiong|hung
秦:qin|chin|chun 邱:qiu|yau|chiu|khoo 江:jiang|kong|kang 尹:yin|wan 薛:xue|sit|hsueh 段:duan|tuen 雷:lei|lui|loi 侯:hou|hau
龙:long|lung 龍:long|lung 史:shi|sze 陶:tao|to 黎:li|lai|le 贺:he|ho 賀:he|ho 顾:gu|koo|ku 顧:gu|koo|ku 毛:mao|mo 郝:hao
龚:gong|kung 龔:gong|kung 邵:shao|shiu 万:wan|man 萬:wan|man 钱:qian|chin 錢:qian|chin 严:yan|yim 嚴:yan|yim 武:wu|mo
戴:dai|tai 莫:mo|mok 孔:kong|hung 向:xiang|heung 汤:tang|tong 湯:tang|tong 常:chang|sheung 温:wen|wan|woon 溫:wen|wan|woon
康:kang|hong 施:shi|sze 文:wen|man 牛:niu 樊:fan 葛:ge|kot 邢:xing|ying 安:an|on 齐:qi|chai 齊:qi|chai 易:yi 乔:qiao|kiu
喬:qiao|kiu 伍:wu|ng 庞:pang|pong 龐:pang|pong 颜:yan|ngan|gan 顏:yan|ngan|gan 倪:ni|ngai 庄:zhuang|chong 莊:zhuang|chong
聂:nie|nip 聶:nie|nip 章:zhang|cheung 鲁:lu|lo 魯:lu|lo 岳:yue|ngok 殷:yin|yan 詹:zhan|chim 欧:ou|au 歐:ou|au 关:guan|kwan
關:guan|kwan 兰:lan 蘭:lan 俞:yu|yue 柳:liu|lau 甘:gan|kam 包:bao|pau 梅:mei|mui 凌:ling 霍:huo|fok 翁:weng|yung|ong
麦:mai|mak 麥:mai|mak 岑:cen|shum 卫:wei|wai 衛:wei|wai 区:ou|au 區:ou|au 利:li|lee 欧阳:ouyang|auyeung 歐陽:ouyang|auyeung
司马:sima 司馬:sima 上官:shangguan 诸葛:zhuge 諸葛:zhuge 司徒:situ|seto|szeto 夏侯:xiahou 东方:dongfang 東方:dongfang
皇甫:huangfu 令狐:linghu 慕容:murong 公孙:gongsun 公孫:gongsun`;

// Korean: family names in Hangul (and the Hanja of the most common ones).
const KOREAN = `김:kim|gim 이:lee|yi|rhee|i|ri 박:park|pak|bak 최:choi|choe|chey 정:jung|jeong|chung|cheong 강:kang|gang 조:cho|jo|joe
윤:yoon|yun 장:jang|chang 임:lim|im|rim 한:han 오:oh|o 서:seo|suh|so 신:shin|sin 권:kwon|gwon 황:hwang 안:ahn|an
송:song 전:jeon|jun|chun|chon 홍:hong 유:yoo|yu|you 고:ko|go 문:moon|mun 양:yang 손:son|sohn 배:bae|pae 백:baek|paik|baik
허:heo|hur|huh 남:nam 심:shim|sim 노:noh|no|roh 하:ha 곽:kwak|gwak 성:sung|seong 차:cha 주:joo|ju|chu 우:woo|u 구:koo|gu|ku
민:min 류:ryu|yoo|yu|ryoo 나:na|ra 진:jin|chin 지:ji|chi 엄:eom|um|uhm 채:chae 원:won 천:cheon|chun 방:bang 공:kong|gong
현:hyun|hyeon 함:ham 변:byun|byeon 염:yeom|yum 여:yeo|yu 추:choo|chu 도:do|doh 소:so 석:seok|suk 선:sun|seon 설:seol|sul
마:ma 길:gil|kil 연:yeon|yun 위:wi|wee 표:pyo 명:myung|myeong 기:ki|gi 반:ban|pan 왕:wang 금:keum|geum 옥:ok 육:yook|yuk
인:in 맹:maeng 제:je|jae 모:mo 탁:tak 국:kook|guk 어:eo|uh 은:eun 편:pyun|pyeon 용:yong 예:ye|yea 봉:bong 경:kyung|gyeong
남궁:namgung|namkoong 선우:sunwoo|seonu 제갈:jegal 황보:hwangbo 독고:dokgo 사공:sagong 서문:seomun`;

function table(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const entry of text.split(/\s+/)) {
    const [name, spellings] = entry.split(":");
    if (!name || !spellings) continue;
    out.set(name, [...new Set([...(out.get(name) ?? []), ...spellings.split("|")])]);
  }
  return out;
}

/** Family name (Han or Hangul) → its romanized spellings. Japanese readings come first for a Han name both use. */
export const CJK_FAMILY_NAMES: ReadonlyMap<string, readonly string[]> = (() => {
  const out = table(JAPANESE);
  for (const [k, v] of table(CHINESE)) out.set(k, [...new Set([...(out.get(k) ?? []), ...v])]);
  for (const [k, v] of table(KOREAN)) out.set(k, [...new Set([...(out.get(k) ?? []), ...v])]);
  return out;
})();
