// A game set on the AIWolf 0.6 platform's own server, as the contest runs one: the
// agents connect once (TcpipServer.waitForConnection, as ServerStarter does), then the
// set's games are played over the same connections, each an AIWolfGame of
// GameSetting.getDefaultGame(players) with its own seeded chance and its own log file.
//
//   java -cp BUILD:jsonic.jar SetServer PORT PLAYERS GAMES LOGDIR [SEED]
import java.io.File;
import java.util.Random;

import org.aiwolf.common.net.GameSetting;
import org.aiwolf.server.AIWolfGame;
import org.aiwolf.server.net.TcpipServer;

public class SetServer {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int players = Integer.parseInt(args[1]);
        int games = Integer.parseInt(args[2]);
        File logs = new File(args[3]);
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 1L;
        logs.mkdirs();
        GameSetting setting = GameSetting.getDefaultGame(players);
        TcpipServer server = new TcpipServer(port, players, setting);
        server.waitForConnection();
        for (int i = 1; i <= games; i++) {
            AIWolfGame game = new AIWolfGame(setting, server);
            game.setRand(new Random(seed + i));
            game.setShowConsoleLog(false);
            game.setLogFile(new File(logs, String.format("game-%03d.log", i)));
            game.start();
            System.out.printf("game %d: %s%n", i, game.getWinner());
        }
        server.close();
    }
}
