package eosfuzz.harness.v39;

import eosfuzz.harness.Adapter;
import eosfuzz.harness.Service;
import eosfuzz.harness.leader.LeaderService;
import eosfuzz.harness.coordinator.TxnMetadataService;
import java.util.LinkedHashMap;
import java.util.Map;

/** The harness's services for the Kafka releases whose signatures are 3.9.1's (jvm/releases.json). */
public final class V39Adapter implements Adapter {
    @Override
    public String name() {
        return "v39";
    }

    @Override
    public Map<String, Service> services() {
        Map<String, Service> services = new LinkedHashMap<>();
        services.put("leader", new LeaderService(V39LeaderLog::create));
        services.put("txnMetadata", new TxnMetadataService(V39TxnMetadata::create));
        services.put("txnCoordinator", new eosfuzz.harness.coordinator.TxnCoordinatorService(V39TxnCoordinator::create));
        services.put("transactionManager", new eosfuzz.harness.client.TransactionManagerService(V39TransactionalClient::create));
        services.put("clientMetadata", new eosfuzz.harness.client.ClientMetadataService());
        return services;
    }
}
