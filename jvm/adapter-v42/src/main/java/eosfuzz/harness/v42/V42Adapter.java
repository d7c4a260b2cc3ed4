package eosfuzz.harness.v42;

import eosfuzz.harness.Adapter;
import eosfuzz.harness.Service;
import eosfuzz.harness.coordinator.TxnCoordinatorService;
import eosfuzz.harness.coordinator.TxnMetadataService;
import eosfuzz.harness.leader.LeaderService;
import java.util.LinkedHashMap;
import java.util.Map;

/** The harness's services for the Kafka releases whose signatures are 4.2.1's (jvm/releases.json). */
public final class V42Adapter implements Adapter {
    @Override
    public String name() {
        return "v42";
    }

    @Override
    public Map<String, Service> services() {
        Map<String, Service> services = new LinkedHashMap<>();
        services.put("leader", new LeaderService(V42LeaderLog::create));
        services.put("txnMetadata", new TxnMetadataService(V42TxnMetadata::create));
        services.put("txnCoordinator", new TxnCoordinatorService(V42TxnCoordinator::create));
        services.put("transactionManager", new eosfuzz.harness.client.TransactionManagerService(V42TransactionalClient::create));
        services.put("clientMetadata", new eosfuzz.harness.client.ClientMetadataService());
        return services;
    }
}
