import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.aiwolf.common.data.Agent;
import org.aiwolf.common.data.Player;
import org.aiwolf.common.data.Role;
import org.aiwolf.common.data.Talk;
import org.aiwolf.common.data.Team;
import org.aiwolf.common.net.GameInfo;
import org.aiwolf.common.net.GameSetting;
import org.aiwolf.server.AIWolfGame;
import org.aiwolf.server.net.DirectConnectServer;

/**
 * Times in-process AIWolf games: the server's own game loop (AIWolfGame with a
 * DirectConnectServer and GameSetting.getDefaultGame(n)), random players, no
 * logging. Usage: java Bench [warmupGames] [gamesPerRun] [runs] [playerCounts...]
 */
public class Bench {

	/** Talks/whispers "Over"; every target is uniform among the living others. */
	static final class RandomPlayer implements Player {
		private final Random rng;
		private GameInfo info;
		private Agent me;

		RandomPlayer(Random rng) { this.rng = rng; }

		@Override public String getName() { return "Random"; }
		@Override public void update(GameInfo gameInfo) { info = gameInfo; }
		@Override public void initialize(GameInfo gameInfo, GameSetting gameSetting) { info = gameInfo; me = gameInfo.getAgent(); }
		@Override public void dayStart() { }
		@Override public String talk() { return Talk.OVER; }
		@Override public String whisper() { return Talk.OVER; }
		@Override public Agent vote() { return pick(false); }
		@Override public Agent divine() { return pick(false); }
		@Override public Agent guard() { return pick(false); }
		/** A werewolf picks among the living others it does not know to be werewolves. */
		@Override public Agent attack() { return pick(true); }
		@Override public void finish() { }

		private Agent pick(boolean notWolves) {
			List<Agent> alive = info.getAliveAgentList();
			Map<Agent, Role> known = info.getRoleMap();
			List<Agent> cands = new ArrayList<>(alive.size());
			for (Agent a : alive) {
				if (a == me) continue;
				if (notWolves && known.get(a) == Role.WEREWOLF) continue;
				cands.add(a);
			}
			return cands.isEmpty() ? null : cands.get(rng.nextInt(cands.size()));
		}
	}

	static long days, villagerWins, games;

	static void playGames(int n, int count, Random rng) {
		for (int g = 0; g < count; g++) {
			List<Player> players = new ArrayList<>(n);
			for (int i = 0; i < n; i++) players.add(new RandomPlayer(rng));
			DirectConnectServer server = new DirectConnectServer(players);
			GameSetting setting = GameSetting.getDefaultGame(n);
			AIWolfGame game = new AIWolfGame(setting, server);
			game.setRand(new Random(rng.nextLong()));
			game.setShowConsoleLog(false); // no console output; no GameLogger is set, so no file output
			game.start();
			days += game.getGameData().getDay();
			if (game.getWinner() == Team.VILLAGER) villagerWins++;
			games++;
		}
	}

	public static void main(String[] args) {
		int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
		int perRun = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
		int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
		int[] sizes = args.length > 3
				? Arrays.stream(Arrays.copyOfRange(args, 3, args.length)).mapToInt(Integer::parseInt).toArray()
				: new int[] { 5, 15 };
		Random rng = new Random(12345);
		System.out.printf("java %s (%s), warmup %d games, %d runs x %d games%n",
				System.getProperty("java.version"), System.getProperty("java.vm.name"), warmup, runs, perRun);
		for (int n : sizes) {
			GameSetting s = GameSetting.getDefaultGame(n);
			StringBuilder roles = new StringBuilder();
			for (Role r : Role.values()) if (s.getRoleNum(r) > 0) roles.append(r).append('=').append(s.getRoleNum(r)).append(' ');
			playGames(n, warmup, rng);
			days = villagerWins = games = 0;
			double[] ms = new double[runs];
			for (int r = 0; r < runs; r++) {
				long t0 = System.nanoTime();
				playGames(n, perRun, rng);
				ms[r] = (System.nanoTime() - t0) / 1e6 / perRun;
			}
			double[] sorted = ms.clone();
			Arrays.sort(sorted);
			double median = runs % 2 == 1 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
			StringBuilder all = new StringBuilder();
			for (double m : ms) all.append(String.format("%.4f ", m));
			System.out.printf("players=%d roles: %s%n  ms/game best %.4f median %.4f  (runs: %s)%n  mean final day %.2f, villager win rate %.3f over %d timed games%n",
					n, roles.toString().trim(), sorted[0], median, all.toString().trim(),
					(double) days / games, (double) villagerWins / games, games);
		}
	}
}
