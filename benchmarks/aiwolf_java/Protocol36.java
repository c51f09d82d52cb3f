import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.aiwolf.client.lib.*;
import org.aiwolf.common.data.Agent;
import org.aiwolf.common.data.Role;
import org.aiwolf.common.data.Species;

/**
 * The AIWolf platform's own Protocol 3.6 library (AIWolfCommon 0.6.x), for
 * benchmarks/protocol36.py to hold MAW's maw/policies/protocol36.py to.
 *
 * java Protocol36 build SEED N  : N sentences built by the ContentBuilder classes, of
 *                                 every kind (each line: the builder's text)
 * java Protocol36 parse         : each line of stdin read by new Content(line) where
 *                                 Content.validate(line) (each line: its text, or INVALID;
 *                                 CRASH and the exception where the library itself fails)
 */
public class Protocol36 {
    static final Role[] ROLES = Role.values();
    static final Species[] SPECIES = Species.values();

    static Agent agent(Random r, boolean any) {
        int i = r.nextInt(any ? 17 : 16);
        return i == 16 ? Content.ANY : Agent.getAgent(i + 1);
    }

    // a subject: left out (null) a third of the time
    static Agent subject(Random r) {
        return r.nextInt(3) == 0 ? null : agent(r, true);
    }

    static Content build(Random r, int depth) {
        int kinds = depth > 0 ? 23 : 15;
        int k = r.nextInt(kinds);
        Agent s = subject(r);
        Agent t = agent(r, true);
        switch (k) {
            case 0: return new Content(new EstimateContentBuilder(s, t, ROLES[r.nextInt(ROLES.length)]));
            case 1: return new Content(new ComingoutContentBuilder(s, t, ROLES[r.nextInt(ROLES.length)]));
            case 2: return new Content(new DivinationContentBuilder(s, t));
            case 3: return new Content(new DivinedResultContentBuilder(s, t, SPECIES[r.nextInt(SPECIES.length)]));
            case 4: return new Content(new IdentContentBuilder(s, t, SPECIES[r.nextInt(SPECIES.length)]));
            case 5: return new Content(new GuardCandidateContentBuilder(s, t));
            case 6: return new Content(new GuardedAgentContentBuilder(s, t));
            case 7: return new Content(new VoteContentBuilder(s, t));
            case 8: return new Content(new VotedContentBuilder(s, t));
            case 9: return new Content(new AttackContentBuilder(s, t));
            case 10: return new Content(new AttackedContentBuilder(s, t));
            case 11: return new Content(new AgreeContentBuilder(s, r.nextBoolean() ? TalkType.TALK : TalkType.WHISPER, r.nextInt(15), r.nextInt(100)));
            case 12: return new Content(new DisagreeContentBuilder(s, r.nextBoolean() ? TalkType.TALK : TalkType.WHISPER, r.nextInt(15), r.nextInt(100)));
            case 13: return Content.OVER;
            case 14: return Content.SKIP;
            case 15: return new Content(new RequestContentBuilder(s, t, build(r, depth - 1)));
            case 16: return new Content(new InquiryContentBuilder(s, t, build(r, depth - 1)));
            case 17: return new Content(new BecauseContentBuilder(s, build(r, depth - 1), build(r, depth - 1)));
            case 18: return new Content(new DayContentBuilder(s, r.nextInt(15), build(r, depth - 1)));
            case 19: return new Content(new NotContentBuilder(s, build(r, depth - 1)));
            case 20: {
                Content[] cs = new Content[1 + r.nextInt(3)];
                for (int i = 0; i < cs.length; i++) cs[i] = build(r, depth - 1);
                return new Content(new AndContentBuilder(s, cs));
            }
            case 21: {
                Content[] cs = new Content[1 + r.nextInt(3)];
                for (int i = 0; i < cs.length; i++) cs[i] = build(r, depth - 1);
                return new Content(new OrContentBuilder(s, cs));
            }
            default: return new Content(new XorContentBuilder(s, build(r, depth - 1), build(r, depth - 1)));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("build")) {
            Random r = new Random(Long.parseLong(args[1]));
            int n = Integer.parseInt(args[2]);
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < n; i++) {
                out.append(build(r, i % 4).getText()).append('\n');
            }
            System.out.print(out);
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            String text;
            try {
                text = Content.validate(line) ? new Content(line).getText() : "INVALID";
            } catch (RuntimeException e) {  // the library's own fault (BECAUSE with one sentence)
                text = "CRASH " + e.getClass().getSimpleName();
            }
            out.append(text).append('\n');
        }
        System.out.print(out);
    }
}
