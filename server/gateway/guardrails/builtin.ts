// The four built-in jailbreak rules (SPEC.md, Guardrails): literal English regular expressions over
// the text the model would read, case-insensitive, no context analysis. Seeded per workspace,
// disabled, action block. Tuned on the training split of the evaluation set only (README,
// "Guardrails"; `npm run bench:guardrails` prints recall and false positives on the held-back split).
//
// Each is written for V8's backtracking engine without nested unbounded quantifiers: every gap is a
// bounded run of non-terminators ([^.\n]{0,N}), so a scan stays linear in the input.

export const BUILTIN_GROUP = 'Jailbreak Detection';

export interface BuiltinRule {
  key: 'instruction_override' | 'system_prompt_extraction' | 'role_reversal' | 'delimiter_injection';
  name: string;
  pattern: string;
}

const OVERRIDE_VERB = `(?:ignore|ignoring|disregard|disregarding|forget|forgetting|overrid(?:e|ing)|bypass|abandon|discard|drop|skip|neglect|set aside|pay no attention to|stop following|do not follow|don'?t follow|no longer follow|throw out|erase|clear|reset|delete|omit|defy|negate|rescind|revoke|overwrite|replace|go against|subvert|contradict|violate|cancel|dismiss|void|without adherence to|not listen to|don'?t listen to)`;
const PRIOR = `(?:previous|previously|prior|preceding|above|earlier|former|initial|original|old|existing|foregoing|all|your|system)`;
/** Instructions, spelt as players of prompt-injection games spell it (instrutions, isntructions, ...). */
const INSTR = `i[ns]{1,2}t?ru?c?t?i?o?ns?`;
const INSTRUCTIONS = `(?:${INSTR}|instructs?|directions?|directives?|prompts?|rules?|guidelines?|orders?|commands?|context|constraints?|restrictions?|programming|assignments?|tasks?|text|sentences?|messages?|conversation|information|input|training|guidance|policies|polic(?:y|ies)|settings|configuration|limitations)`;

const instructionOverride = [
  String.raw`\b${OVERRIDE_VERB}\b[^.\n]{0,40}?\b${PRIOR}\b[^.\n]{0,30}?\b${INSTRUCTIONS}\b`,
  String.raw`\b(?:ignore|disregard|forget)\b[^.\n]{0,12}\b(?:everything|all(?: of)? (?:that|this|it))\b[^.\n]{0,20}\b(?:above|before|previous|prior|earlier|said|told|you(?:'ve| have) been)`,
  String.raw`\b(?:ignore|disregard|forget)\s+(?:the\s+)?(?:above|previous|prior|preceding)\b`,
  String.raw`\bnew (?:${INSTR}|task|rules?|guidelines|directives?)\b`,
  String.raw`\b(?:ignore|ignoring|disregard|forget|forgot|omit|defy|override|overwrite|bypass|subvert|go against|break)\s+(?:all\s+|any\s+|the\s+|these\s+|those\s+|that\s+|this\s+|your\s+|my\s+)*(?:${INSTR}|rules|orders?|directives?|guidelines|restrictions|restraints|safety|programming|creators?|techniques|technics|protocols?|checks)\b`,
  String.raw`\b(?:ignore|disregard|forget|forgot)\s+(?:everything|anything|all that|what you(?:'ve| have)? (?:been told|learn))`,
  String.raw`\b(?:previous|prior|past|earlier|all|your)\s+(?:${INSTR}|commands|prompts|orders)\s+(?:are|is|were|should be|be|have been)\s+(?:now\s+)?(?:revoked|false|void|cancell?ed|ignored|disregarded|changed|invalid|obsolete|null|overridden|replaced|deleted)`,
  String.raw`\b(?:do|say) the opp?[oi]site\b`,
  String.raw`\b(?:ignore|ignoring|ignored|disregard|forget|skip|reject|invert|(?:don'?t|do not) (?:obey|follow))\s+(?:(?:all|any|each|every|the|your|my|our|of|these|those|that|this|last|few|previous|prior|past|above|below|current|defender|guard)\s+)*(?:[\w"'-]+\s+)?(?:${INSTR}|directions?|directives?|commands?|orders|techniques|guid\w*|restrictions?|restraints|conditions|conversations?|prompts?|everything|everthing|information|things you)\b`,
  String.raw`\b(?:previous|prior|past|preceding|earlier|priority)\s*(?:\w+\s+)?${INSTR}\b`,
  String.raw`\binstead of (?:following|obeying)\b[^.\n]{0,30}\binstructions?\b`,
].join('|');

const REVEAL = `(?:reveal|show|print|repeat|display|output|tell|give|list|write(?: out| down)?|share|spell|recite|dump|leak|disclose|return|copy|echo|paste|summari[sz]e|translate|explain|describe|state|type|provide|read)`;
const HIDDEN = `(?:your|initial|original|hidden|secret|system|previous|above|preceding|earlier|prior)`;
const systemPromptExtraction = [
  String.raw`\bsystem\s*(?:prompt|message|instructions?)\b`,
  String.raw`\b(?:initial|original|hidden|secret|pre-?)\s*(?:prompt|instructions?)\b`,
  String.raw`\b${REVEAL}\b[^.\n?]{0,30}?\b${HIDDEN}\b[^.\n?]{0,20}?\b(?:instructions?|prompts?|directives?)\b`,
  String.raw`\bwhat (?:is|are|were|was)\b[^.\n?]{0,15}\b(?:your|the|these|those)\b[^.\n?]{0,15}\b(?:instructions?|prompt|directives?|rules you)\b`,
  String.raw`\b(?:instructions?|prompt|rules) (?:you (?:were|have been|are|got|received)|(?:were|was|is|are) (?:given|provided) to you|given to you|above this)\b`,
  String.raw`\bwords? (?:above|before) (?:this|the)\b`,
  String.raw`\b(?:repeat|quote|duplicate|replay|display|print|reveal|show|list|dump|recite|respond with|reply with|request|describe|explain|summari[sz]e|spell out|gimme|give me|tell me)\b[^.\n?]{0,20}?\b(?:your|my|previous|current|prior|original|initial|the last|all(?: of)?(?: your| the)?)\s+(?:${INSTR}|guidelines|directives|rules you|prompt)\b`,
  String.raw`\bwhat(?:'s|s|'re| is| are| r| were| was| other| kind of)?\b[^.\n?]{0,12}\b(?:your|you|previous|prior|current|the) (?:${INSTR}|directives?|guidelines)\b`,
  String.raw`\b(?:${INSTR}|guidelines|directives|rules) (?:you(?:'ve| have)? (?:been )?(?:given|got|received|following|programmed)|(?:provided|given) to you|to you)\b`,
  String.raw`\bthings (?:that )?you are instructed\b`,
  String.raw`\b(?:my previous|guard|secret|complete|unabridged)\s+(?:\w+\s+)?${INSTR}\b`,
  String.raw`\byour\s+(?:\w+\s+)?${INSTR}\b(?:\s*(?:[?!:]|$|\b(?:are|were|say|says|to me|backwards|verbatim|exactly|word for word|in full|before|given|from|and print|translated)\b))`,
  String.raw`\b(?:about|against|adhere to|remember|change|changed|apply|violate|disobey|regurgitate|reveal|summari[sz]e|duplicate|repeat|list|print)\s+(?:all (?:of )?)?your\s+(?:\w+\s+)?${INSTR}\b`,
  String.raw`\b${INSTR}\s+(?:that )?(?:you|we)\s+(?:were|where|have|had|got|received|are|did)\b`,
  String.raw`\b(?:repeat|rephrase|respond with|spell|print|regurgitate|rot13|translate|reverse|shuffle|recite|paraphrase|quote|encode)\b[^.\n?]{0,25}\b${INSTR}\b`,
  String.raw`\brepeat (?:the |all )?(?:text|words|everything) (?:above|before)\b`,
].join('|');

const roleReversal = [
  String.raw`\bDAN\b[^.\n]{0,40}\b(?:mode|prompt|jailbreak|can|will|stands|which|has|is)\b`,
  String.raw`\bdo anything now\b`,
  String.raw`\b(?:developer|dev|god|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|sudo|admin|debug|maintenance|dan|devil|chaos|opposite|anarchy)\s+mode\b`,
  String.raw`\bjail\s?br(?:oken|eak)\b[^.\n]{0,30}\b(?:ai|chatgpt|gpt|model|assistant|mode|prompt|version of you|bot|llm)\b|\b(?:chatgpt|gpt|ai|assistant|llm|you)\b[^.\n]{0,30}\bjail\s?br(?:oken|eak)`,
  String.raw`\b(?:unrestricted|unfiltered|uncensored|unbound|unlimited|amoral|immoral|unethical|rogue|evil)\s+(?:ai|a\.i\.|model|chatbot|bot|assistant|persona|entity|language model|llm|gpt)\b`,
  String.raw`\b(?:no|without|free (?:of|from)|devoid of|not (?:bound|restricted|limited) by|doesn'?t (?:have|care about|follow)|does not (?:have|care about|follow)|ignores?|disregards?|breaks?|broken free of|free from)\b[^.\n]{0,25}\b(?:moral|morals|morality|ethics|ethical|restrictions?|filters?|filtering|censorship|censors?|limitations?|guidelines|rules|boundaries|safeguards|content polic(?:y|ies)|openai polic(?:y|ies)|programming)\b[^.\n]{0,30}\b(?:ai|chatbot|bot|model|assistant|answer|respond|responses?|reply|anything|whatsoever|at all|you are|you will|you can|always)\b`,
  String.raw`\b(?:stay|remain|break|breaking|staying) (?:in|out of) character\b`,
  String.raw`\bnever (?:refuses?|say no|declines?|rejects?)\b`,
  String.raw`\b(?:has|have|with|without) no (?:moral|ethical|legal)\b|\bno (?:moral|ethical)(?:,| or| and)? (?:ethical |legal |moral )?(?:bounds|compass|guidelines|restrictions|limits)\b`,
  String.raw`\bwithout (?:any )?(?:warnings?|disclaimers?|censorship|filters?)\b[^.\n]{0,20}\b(?:respond|answer|reply|provide|generate|say)|\b(?:respond|answer|reply)\w*\b[^.\n]{0,30}\bwithout (?:any )?(?:warnings?|disclaimers?|censorship|filters?|restrictions?)\b`,
  String.raw`\b(?:amoral|unethical|evil|sinister|unrestricted|unfiltered)\b[^.\n]{0,40}\b(?:ai|chatbot|assistant|gpt|version of (?:chatgpt|gpt|you))\b`,
  String.raw`\byou will (?:now )?(?:act|respond|pretend|simulate|answer)\b[^.\n]{0,30}\b(?:as|like)\b[^.\n]{0,40}\b(?:unrestricted|unfiltered|uncensored|no (?:rules|limits|restrictions|filters)|without (?:rules|limits|restrictions|filters))\b`,
  String.raw`\b(?:from now on|for the rest of this conversation|henceforth|from this point(?: on)?)\b[^.\n]{0,20}\byou (?:are|will be|will act|will respond|shall|must)\b[^.\n]{0,60}\b(?:ai|chatbot|model|mode|named|called|unrestricted|unfiltered|no|without|free|anything|any)\b`,
  String.raw`\byou are (?:now |no longer )[^.\n]{0,40}\b(?:chatgpt|ai|assistant|bound|restricted|free|unrestricted|unfiltered|mode)\b`,
  String.raw`\b(?:simulate|emulate|act as|pretend to be|roleplay as|role-play as|become)\b[^.\n]{0,40}\b(?:chatgpt|gpt|ai|chatbot)\b[^.\n]{0,40}\b(?:no|without|unrestricted|unfiltered|uncensored|mode|opposite|free)\b`,
  String.raw`\b(?:openai|content|usage) polic(?:y|ies)\b[^.\n]{0,40}\b(?:ignore|disregard|bypass|doesn'?t apply|do not apply|not apply|no longer)\b`,
  String.raw`\b(?:ignore|disregard|bypass|circumvent|break free of|escape)\b[^.\n]{0,20}\b(?:openai|content|usage|safety) (?:polic(?:y|ies)|guidelines|filters?|rules)\b`,
].join('|');

const delimiterInjection = [
  String.raw`<\|?\s*(?:im_start|im_end|system|endoftext|end_of_turn|start_header_id|eot_id|assistant)\s*\|?>`,
  String.raw`\[/?(?:INST|SYS|SYSTEM|ADMIN)\]|<</?SYS>>`,
  String.raw`</?\s*(?:system|instructions?|admin|developer|sys)\s*>`,
  String.raw`(?:^|\n)\s*(?:#{1,4}|={2,}|-{2,}|\*{2,}|\[)?\s*(?:system|admin|developer|new instructions?|override|root)\s*(?:message|prompt|note|override|instructions?|mode|update)?\s*(?:\]|#{1,4}|={2,}|-{2,}|\*{2,})?\s*:`,
  String.raw`\b(?:end|beginning|start) of (?:the )?(?:system )?(?:prompt|instructions?|input|context|user input)\b`,
  String.raw`(?:-{3,}|={3,}|#{3,})\s*(?:new|next|end|begin|start)\b`,
].join('|');

export const BUILTIN_RULES: readonly BuiltinRule[] = [
  { key: 'instruction_override', name: 'Instruction override', pattern: instructionOverride },
  { key: 'system_prompt_extraction', name: 'System prompt extraction', pattern: systemPromptExtraction },
  { key: 'role_reversal', name: 'Role reversal / mode switch', pattern: roleReversal },
  { key: 'delimiter_injection', name: 'Delimiter injection', pattern: delimiterInjection },
];

/**
 * Flags of rules on V8's engine: case-insensitive. Not Unicode: V8's Unicode case folding makes a
 * scan of these rules about ten times slower. RE2 needs the Unicode flag (patterns.ts).
 */
export const RULE_FLAGS = 'i';
